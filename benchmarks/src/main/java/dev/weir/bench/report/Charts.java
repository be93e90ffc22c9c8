package dev.weir.bench.report;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/** The benchmark report's charts, PNG files next to it (XChart). */
final class Charts {

  private Charts() {}

  /**
   * One bar per entry; returns the file's name. A log scale cannot show a value that is not
   * positive: such a bar is left out (the report's table still has it).
   */
  static String bars(
      Path dir, String name, String title, String yTitle, Map<String, Double> values, boolean log)
      throws IOException {
    Map<String, Double> shown = new LinkedHashMap<>();
    values.forEach(
        (label, value) -> {
          if (!log || (value > 0 && Double.isFinite(value))) {
            shown.put(label, value);
          }
        });
    CategoryChart chart =
        new CategoryChartBuilder().width(900).height(480).title(title).yAxisTitle(yTitle).build();
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setXAxisLabelRotation(20);
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setYAxisLogarithmic(log);
    if (log && !shown.isEmpty()) {
      // Bars start at 0 unless told otherwise, and a log axis cannot show 0.
      double smallest = shown.values().stream().mapToDouble(Double::doubleValue).min().orElse(1);
      chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(smallest))));
    }
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.addSeries(yTitle, new ArrayList<>(shown.keySet()), new ArrayList<Number>(shown.values()));
    return save(chart, dir, name);
  }

  /** Lines: series name → (x → y); returns the file's name. */
  static String lines(
      Path dir,
      String name,
      String title,
      String xTitle,
      String yTitle,
      Map<String, Map<Integer, Double>> series)
      throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(480)
            .title(title)
            .xAxisTitle(xTitle)
            .yAxisTitle(yTitle)
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setXAxisDecimalPattern("#");
    series.forEach(
        (label, points) -> {
          List<Integer> xs = new ArrayList<>(points.keySet());
          List<Double> ys = new ArrayList<>(points.values());
          chart.addSeries(label, xs, ys);
        });
    return save(chart, dir, name);
  }

  private static String save(Chart<?, ?> chart, Path dir, String name) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name + ".png";
  }
}
