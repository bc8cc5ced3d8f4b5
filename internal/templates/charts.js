// Draws every chart of the page. Each chart's options sit in a JSON data
// island (a script element of type application/json, class chart-data,
// naming its div in data-for), escaped by html/template; this script only
// parses and draws them, so no page data is ever evaluated as code.
(function () {
  "use strict";
  var drawn = 0, failed = [];
  function fail(el, msg) {
    failed.push(msg);
    if (el) {
      el.classList.add("chart-error");
      el.textContent = msg;
    }
  }
  function draw() {
    var islands = document.querySelectorAll('script[type="application/json"].chart-data');
    if (typeof echarts === "undefined") {
      for (var i = 0; i < islands.length; i++) {
        fail(document.getElementById(islands[i].getAttribute("data-for")),
          "The chart library (assets/echarts.min.js) did not load, so this chart cannot be drawn.");
      }
      return;
    }
    var charts = [];
    for (var j = 0; j < islands.length; j++) {
      var el = document.getElementById(islands[j].getAttribute("data-for"));
      if (!el) { continue; }
      try {
        var opt = JSON.parse(islands[j].textContent);
        var chart = echarts.init(el, null, { renderer: "canvas" });
        chart.setOption(opt);
        charts.push(chart);
        drawn++;
      } catch (e) {
        fail(el, "This chart could not be drawn: " + e);
      }
    }
    window.addEventListener("resize", function () {
      for (var k = 0; k < charts.length; k++) { charts[k].resize(); }
    });
  }
  draw();
  window.kafkabookCharts = { drawn: drawn, failed: failed };
})();
