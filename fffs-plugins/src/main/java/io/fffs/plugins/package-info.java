/**
 * The user-time plug-ins shipped with FFFS (docs/design.md §8), found by {@code UserTimeExtractors.load} through
 * {@code ServiceLoader}. A file chooses one at create time with {@code fffs.usertime.plugin}, whose value is a name
 * with optional parameters after a colon:
 *
 * <pre>
 * ts64 | ts64:prefixed   length-prefixed binary records, 8-byte big-endian µs time first   {@link io.fffs.plugins.Ts64UserTimeExtractor}
 * ts64:fixed=N           N-byte binary records, 8-byte big-endian µs time first
 * text | text:sep=C      lines whose first field (before C, default ',') is a time         {@link io.fffs.plugins.TextUserTimeExtractor}
 * json | json:field=F    JSON Lines whose top-level field F (default ts) is a time         {@link io.fffs.plugins.JsonUserTimeExtractor}
 * wave                   the wave experiment's 20-byte {@link io.fffs.plugins.WaveRecord}s  {@link io.fffs.plugins.WaveUserTimeExtractor}
 * </pre>
 *
 * Text times are epoch milliseconds ({@code 1763719200000[.250]}) or ISO-8601 with a zone. A record the plug-in
 * cannot read refuses the whole write with {@code INVALID_ARGUMENT} naming the record's byte offset in the block; a
 * record whose time is earlier than one before it is refused by the DataNode with {@code USER_TIME_REGRESSION}.
 * Only complete records count: a line-based record gets its time when its {@code \n} arrives.
 */
package io.fffs.plugins;
