package io.jfabric.bench;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A two-panel PNG drawn with java.awt in headless mode: latency (us, log scale) and bandwidth (MB/s, log
 * scale) against message size (log2 scale), one curve per series, with a legend. No plotting library is
 * needed, so bench/compare runs wherever a JDK does.
 */
final class Plot {
    /** One curve: a value per size (NaN where not measured). */
    record Series(String name, Color color, boolean dashed, double[] latency, double[] bandwidth) {
    }

    private static final int PANEL_W = 620;
    private static final int PANEL_H = 440;
    private static final int MARGIN_L = 78;
    private static final int MARGIN_R = 20;
    private static final int MARGIN_T = 50;
    private static final int MARGIN_B = 60;

    private Plot() {
    }

    static void render(Path png, String title, long[] sizes, List<Series> series) throws IOException {
        render(png, title, sizes, series, "latency (usec/xfer, one way)", "bandwidth (MB/s)");
    }

    /** The same with other panel titles: the left panel draws each series' first values, the right its second. */
    static void render(Path png, String title, long[] sizes, List<Series> series, String leftLabel, String rightLabel)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(2 * PANEL_W, PANEL_H + 30, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, 20, 24);
        panel(g, 0, 30, leftLabel, sizes, series, true);
        panel(g, PANEL_W, 30, rightLabel, sizes, series, false);
        g.dispose();
        ImageIO.write(img, "png", png.toFile());
    }

    private static void panel(Graphics2D g, int x0, int y0, String label, long[] sizes, List<Series> series,
                              boolean latency) {
        int left = x0 + MARGIN_L;
        int right = x0 + PANEL_W - MARGIN_R;
        int top = y0 + MARGIN_T;
        int bottom = y0 + PANEL_H - MARGIN_B;
        double minY = Double.MAX_VALUE;
        double maxY = -Double.MAX_VALUE;
        for (Series s : series) {
            for (double v : latency ? s.latency : s.bandwidth) {
                if (v > 0 && !Double.isNaN(v) && !Double.isInfinite(v)) {
                    minY = Math.min(minY, v);
                    maxY = Math.max(maxY, v);
                }
            }
        }
        if (minY == Double.MAX_VALUE) {
            minY = 1;
            maxY = 10;
        }
        double lo = Math.floor(Math.log10(minY));
        double hi = Math.ceil(Math.log10(maxY));
        if (hi <= lo) {
            hi = lo + 1;
        }
        double xlo = Math.log(Math.max(1, sizes[0])) / Math.log(2);
        double xhi = Math.log(Math.max(2, sizes[sizes.length - 1])) / Math.log(2);
        if (xhi <= xlo) {
            xhi = xlo + 1;
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics fm = g.getFontMetrics();
        // grid and axes
        for (double d = lo; d <= hi; d++) {
            int y = (int) Math.round(bottom - (d - lo) / (hi - lo) * (bottom - top));
            g.setColor(new Color(225, 225, 225));
            g.drawLine(left, y, right, y);
            g.setColor(Color.DARK_GRAY);
            String t = formatPow10(d);
            g.drawString(t, left - 8 - fm.stringWidth(t), y + 4);
        }
        for (long s : sizes) {
            int x = xPos(s, xlo, xhi, left, right);
            g.setColor(new Color(235, 235, 235));
            g.drawLine(x, top, x, bottom);
            g.setColor(Color.DARK_GRAY);
            String t = sizeLabel(s);
            g.drawString(t, x - fm.stringWidth(t) / 2, bottom + 16);
        }
        g.setColor(Color.BLACK);
        g.drawRect(left, top, right - left, bottom - top);
        g.drawString("message size (bytes)", (left + right) / 2 - 55, bottom + 36);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString(label, left, top - 10);
        // curves
        Stroke solid = new BasicStroke(2.2f);
        Stroke dashed = new BasicStroke(1.8f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[]{7f, 5f}, 0f);
        int legendY = top + 18;
        for (Series s : series) {
            double[] v = latency ? s.latency : s.bandwidth;
            g.setColor(s.color);
            g.setStroke(s.dashed ? dashed : solid);
            int px = -1;
            int py = -1;
            for (int i = 0; i < sizes.length; i++) {
                if (!(v[i] > 0) || Double.isInfinite(v[i])) {
                    px = -1;
                    continue;
                }
                int x = xPos(sizes[i], xlo, xhi, left, right);
                int y = (int) Math.round(bottom - (Math.log10(v[i]) - lo) / (hi - lo) * (bottom - top));
                g.fillOval(x - 3, y - 3, 7, 7);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
            // legend
            g.drawLine(left + 12, legendY - 4, left + 40, legendY - 4);
            g.setStroke(new BasicStroke(1f));
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.setColor(Color.BLACK);
            g.drawString(s.name, left + 46, legendY);
            legendY += 16;
        }
        g.setStroke(new BasicStroke(1f));
    }

    private static int xPos(long size, double xlo, double xhi, int left, int right) {
        double lx = Math.log(Math.max(1, size)) / Math.log(2);
        return (int) Math.round(left + 20 + (lx - xlo) / (xhi - xlo) * (right - left - 40));
    }

    private static String formatPow10(double d) {
        double v = Math.pow(10, d);
        if (d >= 0 && d < 7) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (d < 0 && d > -4) {
            return String.format(Locale.ROOT, "%." + (int) -d + "f", v);
        }
        return String.format(Locale.ROOT, "1e%d", (int) d);
    }

    static String sizeLabel(long s) {
        if (s >= 1 << 20 && s % (1 << 20) == 0) {
            return s / (1 << 20) + "M";
        }
        if (s >= 1024 && s % 1024 == 0) {
            return s / 1024 + "k";
        }
        return Long.toString(s);
    }
}
