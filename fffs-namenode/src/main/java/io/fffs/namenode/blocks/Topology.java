package io.fffs.namenode.blocks;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.net.CachedDNSToSwitchMapping;
import org.apache.hadoop.net.DNSToSwitchMapping;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.net.ScriptBasedMapping;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * Which rack a DataNode is on, through Hadoop's own topology settings as HDFS reads them:
 * {@code net.topology.node.switch.mapping.impl} (default {@link ScriptBasedMapping}, which runs
 * {@code net.topology.script.file.name}; {@code org.apache.hadoop.net.TableMapping} reads
 * {@code net.topology.table.file.name}, "host rack" a line). Without either every DataNode is on
 * {@value NetworkTopology#DEFAULT_RACK}. Resolved once per registration, by the DataNode's advertised host.
 */
public final class Topology {
  private final DNSToSwitchMapping mapping;

  private Topology(DNSToSwitchMapping mapping) {
    this.mapping = mapping;
  }

  /** The mapping {@code conf} names, cached as HDFS caches it. */
  public static Topology fromConf(Configuration conf) {
    Class<? extends DNSToSwitchMapping> type = conf.getClass(
        CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY, ScriptBasedMapping.class,
        DNSToSwitchMapping.class);
    DNSToSwitchMapping mapping = ReflectionUtils.newInstance(type, conf);
    return new Topology(mapping instanceof CachedDNSToSwitchMapping ? mapping
        : new CachedDNSToSwitchMapping(mapping));
  }

  /** Every DataNode on the default rack. */
  public static Topology singleRack() {
    return new Topology(null);
  }

  /** The rack of {@code host}; the default rack when the mapping does not know it. */
  public String rackOf(String host) {
    if (mapping == null) {
      return NetworkTopology.DEFAULT_RACK;
    }
    List<String> racks = mapping.resolve(List.of(host));
    return racks == null || racks.isEmpty() || racks.get(0) == null ? NetworkTopology.DEFAULT_RACK : racks.get(0);
  }
}
