package io.fffs.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** XChart helpers: line charts with titled axes and a legend, saved as one PNG (several charts side by side). */
public final class Charts {
  private Charts() {}

  public static XYChart xy(String title, String xTitle, String yTitle) {
    XYChart chart = new XYChartBuilder().width(820).height(560).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle)
        .build();
    chart.getStyler().setLegendPosition(LegendPosition.InsideNW);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setPlotGridLinesVisible(true);
    return chart;
  }

  /** A series with markers; a baseline's series (its name starts with "HDFS") is dashed. */
  public static void line(XYChart chart, String name, double[] x, double[] y) {
    XYSeries series = chart.addSeries(name, x, y);
    series.setMarker(SeriesMarkers.CIRCLE);
    dashBaseline(name, series);
  }

  public static void plain(XYChart chart, String name, double[] x, double[] y) {
    XYSeries series = chart.addSeries(name, x, y);
    series.setMarker(SeriesMarkers.NONE);
    dashBaseline(name, series);
  }

  private static void dashBaseline(String name, XYSeries series) {
    if (name.startsWith("HDFS") || name.startsWith("goal") || name.equals("parity") || name.startsWith("control")) {
      series.setLineStyle(SeriesLines.DASH_DASH);
    }
  }

  public static CategoryChart bars(String title, String xTitle, String yTitle) {
    CategoryChart chart = new CategoryChartBuilder().width(820).height(560).title(title).xAxisTitle(xTitle)
        .yAxisTitle(yTitle).build();
    chart.getStyler().setLegendPosition(LegendPosition.InsideNW);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    return chart;
  }

  public static void save(Path png, List<? extends Chart<?, ?>> charts) throws IOException {
    Files.createDirectories(png.toAbsolutePath().getParent());
    String name = png.toString().replaceFirst("\\.png$", "");
    if (charts.size() == 1) {
      BitmapEncoder.saveBitmap(charts.get(0), name, BitmapFormat.PNG);
    } else {
      BitmapEncoder.saveBitmap(charts, 1, charts.size(), name, BitmapFormat.PNG);
    }
  }
}
