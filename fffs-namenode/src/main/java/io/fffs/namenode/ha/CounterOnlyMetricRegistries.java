package io.fffs.namenode.ha;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.util.TimeDuration;

/**
 * The metrics registry Ratis finds on the NameNode's class path ({@code META-INF/services}): counters and gauges are
 * kept, timers measure nothing. Ratis times every log write, sync and append; its default registry feeds each
 * timing into a decaying reservoir (a sorted map insert per sample), which cost the Raft log's writer thread about
 * half of its CPU per change. Nothing in FFFS reads Ratis's metrics; {@code bin/fffs admin -haState} and
 * {@code /status} read the Raft state itself.
 */
public final class CounterOnlyMetricRegistries extends MetricRegistries {
  private static final Timekeeper.Context NO_TIMING = () -> 0L;

  private final Map<MetricRegistryInfo, Registry> registries = new ConcurrentHashMap<>();

  /** Public, for {@link java.util.ServiceLoader}. */
  public CounterOnlyMetricRegistries() {}

  private static final class Counter implements LongCounter {
    private final LongAdder count = new LongAdder();

    @Override
    public void inc(long n) {
      count.add(n);
    }

    @Override
    public void dec(long n) {
      count.add(-n);
    }

    @Override
    public long getCount() {
      return count.sum();
    }
  }

  private static final class Registry implements RatisMetricRegistry {
    private final MetricRegistryInfo info;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Supplier<?>> gauges = new ConcurrentHashMap<>();

    Registry(MetricRegistryInfo info) {
      this.info = info;
    }

    @Override
    public Timekeeper timer(String name) {
      return () -> NO_TIMING;
    }

    @Override
    public LongCounter counter(String name) {
      return counters.computeIfAbsent(name, n -> new Counter());
    }

    @Override
    public boolean remove(String name) {
      return counters.remove(name) != null | gauges.remove(name) != null;
    }

    @Override
    public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {
      gauges.put(name, gaugeSupplier.get());
    }

    @Override
    public MetricRegistryInfo getMetricRegistryInfo() {
      return info;
    }
  }

  @Override
  public void clear() {
    registries.clear();
  }

  @Override
  public RatisMetricRegistry create(MetricRegistryInfo info) {
    return registries.computeIfAbsent(info, Registry::new);
  }

  @Override
  public boolean remove(MetricRegistryInfo key) {
    return registries.remove(key) != null;
  }

  @Override
  public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
    return Optional.ofNullable(registries.get(info));
  }

  @Override
  public Set<MetricRegistryInfo> getMetricRegistryInfos() {
    return Set.copyOf(registries.keySet());
  }

  @Override
  public Collection<RatisMetricRegistry> getMetricRegistries() {
    return List.copyOf(registries.values());
  }

  @Override
  public void addReporterRegistration(Consumer<RatisMetricRegistry> reporterRegistration,
      Consumer<RatisMetricRegistry> stopReporter) {}  // nothing to report

  @Override
  public void enableJmxReporter() {}

  @Override
  public void enableConsoleReporter(TimeDuration consoleReportRate) {}
}
