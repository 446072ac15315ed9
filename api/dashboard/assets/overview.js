// The overview's volume chart: uPlot (served by the service) over the page's JSON data block.
// Amounts arrive as decimal strings; they become numbers here only to place points on a
// canvas (the figures people read are in the table beside it, rendered by the server).
const data = JSON.parse(document.getElementById("overview-data").textContent);
const target = document.getElementById("volume-chart");
if (target && data.days.length > 0 && typeof uPlot === "function") {
  const x = data.days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
  const y = data.days.map((d) => Number(d.volume));
  const width = () => Math.max(280, Math.min(900, target.clientWidth || 600));
  const chart = new uPlot(
    {
      width: width(),
      height: 260,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      // Half a day either side, so the first and last days' bars are drawn whole.
      scales: { x: { time: true, range: (u, min, max) => [min - 43200, max + 43200] } },
      axes: [{ stroke: "#1a1a1a" }, { stroke: "#1a1a1a", label: data.currency }],
      series: [{}, { label: `Completed (${data.currency})`, stroke: "#0b57d0", width: 2, fill: "rgba(11,87,208,0.12)", paths: uPlot.paths.bars({ size: [0.6, 40] }), points: { show: false } }],
    },
    [x, y],
    target,
  );
  addEventListener("resize", () => chart.setSize({ width: width(), height: 260 }));
}
