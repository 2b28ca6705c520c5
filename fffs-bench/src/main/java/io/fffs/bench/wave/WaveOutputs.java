package io.fffs.bench.wave;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Everything a run leaves in its output directory: {@code wave-frames.csv} (per-frame metrics),
 * {@code wave-frame.png} (one frame from every reconstruction side by side, as Figure 1), {@code wave-<id>.gif}
 * (each reconstruction's movie, in real time), {@code wave-error.png} and {@code wave-exact.png} (mean temporal
 * error and exact cells over the frames).
 */
final class WaveOutputs {
  private final WaveSettings settings;
  private final List<Movie> movies;

  WaveOutputs(WaveSettings settings, List<Movie> movies) {
    this.settings = settings;
    this.movies = movies;
  }

  void writeAll(Path dir) throws IOException {
    Files.createDirectories(dir);
    new WaveReport(settings, movies).writeCsv(dir.resolve("wave-frames.csv"));
    FrameRenderer renderer = new FrameRenderer(settings.side());
    int frames = movies.stream().mapToInt(m -> m.frames().size()).min().orElse(0);
    if (frames == 0) {
      return;
    }
    int figure = Math.min(settings.figureFrame(), frames - 1);
    ImageIO.write(renderer.renderSideBySide(movies, figure), "png", dir.resolve("wave-frame.png").toFile());
    for (Movie m : movies) {
      List<BufferedImage> images = new ArrayList<>();
      for (int k = 0; k < m.frames().size(); k++) {
        images.add(renderer.render(m, k));
      }
      int delayCentis = (int) Math.max(1, settings.frameMillis() / 10);
      AnimatedGifWriter.write(dir.resolve("wave-" + m.reconstruction().id + ".gif"), images, delayCentis);
    }
    plot(dir.resolve("wave-error.png"), "Mean temporal error per frame", "mean error (ms)", true);
    plot(dir.resolve("wave-exact.png"), "Cells showing the frame's sample", "exact cells (%)", false);
  }

  private void plot(Path file, String title, String yTitle, boolean error) throws IOException {
    XYChart chart = new XYChartBuilder().width(900).height(420).title(title).xAxisTitle("frame (100 ms apart)")
        .yAxisTitle(yTitle).build();
    for (Movie m : movies) {
      List<FrameMetrics> metrics = m.metrics();
      double[] x = new double[metrics.size()];
      double[] y = new double[metrics.size()];
      for (int k = 0; k < metrics.size(); k++) {
        x[k] = k;
        y[k] = error ? metrics.get(k).meanErrorMs() : 100 * metrics.get(k).exactFraction();
      }
      XYSeries series = chart.addSeries(m.reconstruction().title, x, y);
      series.setMarker(SeriesMarkers.NONE);
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
    }
  }
}
