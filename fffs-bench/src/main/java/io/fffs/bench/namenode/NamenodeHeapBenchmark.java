package io.fffs.bench.namenode;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * NameNode heap bytes per file and per extra version: builds N files in directories of 1,000, each with V versions
 * (one create, then setTimes), and measures the retained heap after full GCs. The baseline is the same namespace
 * with one version per file, measured in the same run, so "per extra version" is a difference of two
 * measurements. Usage: {@code bin/fffs bench heap [files] [versions]} (defaults 1,000,000 and 10).
 */
public final class NamenodeHeapBenchmark {
  private NamenodeHeapBenchmark() {}

  public static void main(String[] args) {
    int files = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int versions = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    long empty = usedHeap();
    long single = measure(files, 1);
    long withVersions = measure(files, versions);
    System.out.printf("files=%d versions=%d%n", files, versions);
    System.out.printf("heap, 1 version per file:  %,d bytes = %.1f bytes/file%n", single - empty,
        (single - empty) / (double) files);
    System.out.printf("heap, %d versions per file: %,d bytes = %.1f bytes/file%n", versions, withVersions - empty,
        (withVersions - empty) / (double) files);
    System.out.printf("per extra version: %.1f bytes%n",
        (withVersions - single) / (double) files / Math.max(1, versions - 1));
  }

  private static long measure(int files, int versions) {
    NamespaceBuilder builder = new NamespaceBuilder();
    for (int dir = 0; dir * 1000 < files; dir++) {
      builder.mkdir("/d" + dir);
    }
    for (int i = 0; i < files; i++) {
      builder.createFile("/d" + (i / 1000) + "/f" + i);
    }
    for (int v = 1; v < versions; v++) {
      for (int i = 0; i < files; i++) {
        builder.touch("/d" + (i / 1000) + "/f" + i, v);
      }
    }
    long used = usedHeap();
    if (builder.namespace.inodeCount() < files) {
      throw new AssertionError("namespace lost files");
    }
    return used;
  }

  private static long usedHeap() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 4; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
