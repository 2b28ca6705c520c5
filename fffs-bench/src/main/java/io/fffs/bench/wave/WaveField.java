package io.fffs.bench.wave;

/**
 * The simulated water surface: an analytic sum of travelling waves over a unit-square tank (two plane waves
 * crossing at an angle and a circular ripple spreading from one corner). Deterministic, so every reconstruction can
 * be compared with the exact surface. Heights stay within about ±1.6.
 */
final class WaveField {
  private static final double TWO_PI = 2 * Math.PI;

  /** The surface height at ({@code x}, {@code y}) in [0, 1]² at {@code seconds} after the start. */
  double height(double x, double y, double seconds) {
    double plane1 = 0.6 * Math.cos(TWO_PI * (1.3 * x + 0.4 * y - 0.55 * seconds));
    double plane2 = 0.4 * Math.cos(TWO_PI * (-0.5 * x + 1.1 * y - 0.35 * seconds) + 1.0);
    double r = Math.hypot(x - 0.15, y - 0.2);
    double ripple = 0.6 * Math.cos(TWO_PI * (2.0 * r - 0.8 * seconds)) * Math.exp(-1.5 * r);
    return plane1 + plane2 + ripple;
  }

  /** The height cell {@code cell} of a {@code side}×{@code side} grid (row-major) senses at {@code seconds}. */
  float cellHeight(int cell, int side, double seconds) {
    double x = (cell % side + 0.5) / side;
    double y = (cell / side + 0.5) / side;
    return (float) height(x, y, seconds);
  }
}
