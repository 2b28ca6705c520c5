package io.fffs.bench.wave;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.util.List;
import java.util.Locale;

/**
 * Draws frames as the paper's Figure 1 does: the tank seen from above, one square per cell coloured by surface
 * height (deep blue low, white high); a cell with no sample is grey. Each panel has a title and the frame's
 * metrics beneath it.
 */
final class FrameRenderer {
  /** Heights map to colours over [-LIMIT, LIMIT]. */
  private static final float LIMIT = 1.6f;
  private static final int TITLE = 22;
  private static final int CAPTION = 34;
  private static final int MARGIN = 10;
  private static final Color MISSING = new Color(0x80, 0x80, 0x80);

  private final int side;
  private final int cellPx;

  FrameRenderer(int side) {
    this.side = side;
    this.cellPx = Math.max(4, 240 / side);
  }

  int panelWidth() {
    return side * cellPx + 2 * MARGIN;
  }

  int panelHeight() {
    return TITLE + side * cellPx + CAPTION;
  }

  /** One frame of one reconstruction, alone (a GIF frame). */
  BufferedImage render(Movie movie, int k) {
    BufferedImage image = new BufferedImage(panelWidth(), panelHeight(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = graphics(image);
    drawPanel(g, 0, movie, k, movie.metrics().get(k));
    g.dispose();
    return image;
  }

  /** Frame {@code k} of every movie side by side (Figure 1). */
  BufferedImage renderSideBySide(List<Movie> movies, int k) {
    BufferedImage image = new BufferedImage(panelWidth() * movies.size(), panelHeight(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = graphics(image);
    for (int i = 0; i < movies.size(); i++) {
      Movie m = movies.get(i);
      drawPanel(g, i * panelWidth(), m, k, m.metrics().get(k));
    }
    g.dispose();
    return image;
  }

  private static Graphics2D graphics(BufferedImage image) {
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, image.getWidth(), image.getHeight());
    return g;
  }

  private void drawPanel(Graphics2D g, int x0, Movie movie, int k, FrameMetrics m) {
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    g.drawString(movie.reconstruction().title + ", frame " + k, x0 + MARGIN, 16);
    Frame frame = movie.frames().get(k);
    for (int cell = 0; cell < frame.cells(); cell++) {
      int x = x0 + MARGIN + (cell % side) * cellPx;
      int y = TITLE + (cell / side) * cellPx;
      g.setColor(frame.samples()[cell] == Frame.MISSING ? MISSING : color(frame.heights()[cell]));
      g.fillRect(x, y, cellPx, cellPx);
    }
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    int y = TITLE + side * cellPx;
    g.drawString(String.format(Locale.ROOT, "exact %.0f %%, error mean %.0f / max %.0f ms", 100 * m.exactFraction(),
        m.meanErrorMs(), m.maxErrorMs()), x0 + MARGIN, y + 14);
    g.drawString((m.mixed() ? "mixes times" : "one time") + (m.causalityViolations() > 0
        ? ", " + m.causalityViolations() + " cells went back in time" : ""), x0 + MARGIN, y + 28);
  }

  /** Deep blue (low) through cyan to white (high). */
  static Color color(float height) {
    float t = Math.max(0f, Math.min(1f, (height + LIMIT) / (2 * LIMIT)));
    if (t < 0.5f) {
      float u = t / 0.5f;
      return new Color(0, (int) (40 + 150 * u), (int) (110 + 120 * u));
    }
    float u = (t - 0.5f) / 0.5f;
    return new Color((int) (255 * u), (int) (190 + 65 * u), (int) (230 + 25 * u));
  }
}
