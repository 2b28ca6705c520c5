package io.fffs.client;

import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.TimeText;

/**
 * How much history a path keeps now.
 *
 * @param rule the rule that governs the path
 * @param setOn the directory the rule is set on; empty for the cluster default
 * @param ownRule the path's own rule (a directory's), or null when it follows its parent's
 * @param horizonMicros where the rule's window starts now
 * @param windowStartMicros from this moment on reads of the path are answered (the rule and what garbage
 *     collection already dropped)
 * @param kept the moments garbage collection kept of the path itself
 */
public record RetentionStatus(RetentionRule rule, String setOn, RetentionRule ownRule, long horizonMicros,
    long windowStartMicros, MomentSet kept) {
  /** Lines as {@code bin/fffs history retention PATH} prints them. */
  @Override
  public String toString() {
    return "rule\t" + rule + "\t(" + rule.describe() + ")\n"
        + "set on\t" + (setOn.isEmpty() ? "the cluster default (fffs.history.retention.default)" : setOn) + "\n"
        + "horizon\t" + (rule.keepsAll() ? "none: every moment is kept" : TimeText.isoMicros(horizonMicros)) + "\n"
        + "readable from\t" + (windowStartMicros == 0 ? "the beginning" : TimeText.isoMicros(windowStartMicros))
        + (kept.isAll() ? "" : "\ncollected\tkept exactly at " + kept);
  }
}
