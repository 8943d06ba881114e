// The memory inspector's only script: times in the browser's zone (UTC stays on hover), and the
// health page's live charts. Text from the server is always set as text, never as markup.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

function localTimes(root) {
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
  for (const el of root.querySelectorAll("time[datetime]")) {
    const at = new Date(el.getAttribute("datetime"));
    if (!Number.isNaN(at.getTime())) {
      el.textContent = format.format(at);
    }
  }
}

function svgEl(name, attrs) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  return el;
}

// one chart: a line per series over the samples kept, and a legend with each latest value
function drawLines(box, series, unit, totals) {
  box.replaceChildren();
  const names = Object.keys(series).sort();
  const width = 600, height = 140;
  const svg = svgEl("svg", { viewBox: `0 0 ${width} ${height + 20}`, role: "img", class: "chart-svg" });
  const title = svgEl("title");
  title.textContent = box.closest("section").querySelector("h2").textContent;
  svg.appendChild(title);
  let top = 1;
  for (const n of names) for (const v of series[n]) top = Math.max(top, v);
  svg.appendChild(svgEl("line", { x1: 0, x2: width, y1: height, y2: height, class: "axis" }));
  const topLabel = svgEl("text", { x: 2, y: 12, class: "tick-label" });
  topLabel.textContent = `${Number(top.toFixed(2))} ${unit}`;
  svg.appendChild(topLabel);
  names.forEach((name, i) => {
    const values = series[name];
    const step = width / Math.max(KEEP - 1, 1);
    const start = width - step * (values.length - 1);
    const points = values.map((v, k) => `${(start + k * step).toFixed(1)},${(height - (v / top) * (height - 16)).toFixed(1)}`);
    svg.appendChild(svgEl("polyline", { points: points.join(" "), class: `line c${i % 6}` }));
  });
  box.appendChild(svg);
  const legend = document.createElement("ul");
  legend.className = "legend";
  names.forEach((name, i) => {
    const li = document.createElement("li");
    li.className = `c${i % 6}`;
    const values = series[name];
    const total = totals && name in totals ? ` (${totals[name]} in all)` : "";
    li.textContent = `${name}: ${Number((values[values.length - 1] || 0).toFixed(2))} ${unit}${total}`;
    legend.appendChild(li);
  });
  if (!names.length) {
    const li = document.createElement("li");
    li.textContent = "none so far";
    legend.appendChild(li);
  }
  box.appendChild(legend);
}

const KEEP = 60;

function startHealth(root) {
  const source = root.dataset.source;
  const status = document.getElementById("health-status");
  const charts = {};
  for (const box of root.querySelectorAll("[data-chart]")) charts[box.dataset.chart] = box;
  const history = { lag: {}, behind: {}, applied: {}, dead: {} };
  let previous = null;

  function push(kind, name, value) {
    const list = (history[kind][name] = history[kind][name] || []);
    list.push(value);
    if (list.length > KEEP) list.shift();
  }

  async function read() {
    try {
      const answer = await fetch(source, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      const now = await answer.json();
      for (const row of now.lag) push("lag", `${row.topic} #${row.partition}`, row.lag);
      for (const [topic, seconds] of Object.entries(now.behind_seconds)) push("behind", topic, seconds);
      if (previous) {
        const dt = Math.max((Date.parse(now.at) - Date.parse(previous.at)) / 1000, 0.001);
        for (const [outcome, n] of Object.entries(now.applied)) push("applied", outcome, Math.max(0, n - (previous.applied[outcome] || 0)) / dt);
        for (const [reason, n] of Object.entries(now.dead_letters)) push("dead", reason, Math.max(0, n - (previous.dead_letters[reason] || 0)) / dt);
      }
      previous = now;
      drawLines(charts.lag, history.lag, "messages");
      drawLines(charts.behind, history.behind, "s");
      drawLines(charts.applied, history.applied, "ops/s", now.applied);
      drawLines(charts.dead, history.dead, "/s", now.dead_letters);
      status.textContent = `Last read ${new Date(now.at).toLocaleTimeString()}.`;
    } catch (err) {
      status.textContent = `The last read failed (${err.message}); trying again.`;
    }
  }
  read();
  setInterval(read, 2000);
}

document.addEventListener("DOMContentLoaded", () => {
  localTimes(document);
  const health = document.getElementById("health");
  if (health) startHealth(health);
});
