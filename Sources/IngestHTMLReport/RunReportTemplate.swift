import Foundation

/// The HTML run report's Mustache template: one self-contained page, its
/// CSS, SVG and the few lines of script that sort and filter the feeds
/// table inline, so that the page opens from cron mail or a file share with
/// no network. `{{…}}` escapes HTML; the page never uses the unescaped form.
enum RunReportTemplate {
    /// `source` cut into consecutive parts of about `size` characters, each
    /// whole lines outside every section (`{{#…}}`, `{{^…}}` closed by
    /// `{{/…}}`), so each part parses on its own and the parts rendered one
    /// after the other are the whole template's page, byte for byte.
    static func parts(of source: String = source, size: Int = 1024) -> [String] {
        var parts: [String] = []
        var part = ""
        var depth = 0
        // Each line with its own newline: a standalone tag's line, newline
        // included, stays within one part, as the whole template has it.
        var start = source.startIndex
        while start < source.endIndex {
            let end = source[start...].firstIndex(of: "\n").map { source.index(after: $0) } ?? source.endIndex
            let line = source[start..<end]
            part += line
            depth += line.occurrences(of: "{{#") + line.occurrences(of: "{{^") - line.occurrences(of: "{{/")
            if depth == 0, part.utf8.count >= size {
                parts.append(part)
                part = ""
            }
            start = end
        }
        if !part.isEmpty || parts.isEmpty { parts.append(part) }
        return parts
    }

    static let source = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 16px 24px; color: #1d2327; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid #dcdcde; padding-bottom: 4px; }
.verdict { font-size: 18px; font-weight: 600; padding: 10px 14px; border-radius: 6px; margin: 8px 0 12px; }
.verdict.published { background: #e7f6ea; color: #14532d; }
.verdict.dry { background: #e8f0fb; color: #1e3a8a; }
.verdict.blocked { background: #fdf2e0; color: #7c2d12; }
.verdict.failed { background: #fde8e8; color: #7f1d1d; }
.error { font-family: ui-monospace, monospace; white-space: pre-wrap; background: #fde8e8; padding: 8px; }
dl.figures { display: flex; flex-wrap: wrap; gap: 8px; margin: 0; }
dl.figures div { background: #f6f7f7; border-radius: 6px; padding: 6px 12px; min-width: 90px; }
dl.figures dt { font-size: 12px; color: #50575e; }
dl.figures dd { margin: 0; font-size: 18px; font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 10px 0; }
dl.facts dt { color: #50575e; }
dl.facts dd { margin: 0; font-family: ui-monospace, monospace; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #ececec; vertical-align: top; }
th { background: #f6f7f7; position: sticky; top: 0; }
th.sortable { cursor: pointer; user-select: none; }
th.sortable::after { content: " \2195"; color: #a7aaad; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.attention td { background: #fff8e5; }
tr.total td { font-weight: 600; border-top: 2px solid #c3c4c7; }
.passed { color: #14532d; }
.failed, .FAILED, .dropped { color: #991b1b; font-weight: 600; }
.FORCED { color: #9a3412; font-weight: 600; }
.detail { color: #50575e; font-size: 12px; }
.mono { font-family: ui-monospace, monospace; font-size: 12px; }
input[type=search] { padding: 4px 8px; width: 320px; margin-bottom: 8px; }
details { margin: 4px 0; }
summary { cursor: pointer; }
svg text { font: 11px system-ui, sans-serif; fill: #50575e; }
circle.fresh { fill: #2271b1; opacity: 0.55; }
circle.stale { fill: #d63638; stroke: #7f1d1d; stroke-width: 1; }
rect.bar { fill: #2271b1; }
rect.bar.negative { fill: #00a32a; }
rect.track { fill: #f0f0f1; }
rect.drop { fill: #2271b1; }
rect.drop.failed { fill: #d63638; }
line.limit { stroke: #1d2327; stroke-width: 2; }
.legend span { margin-right: 16px; }
</style>
</head>
<body>
<h1>{{title}}</h1>
<div class="verdict {{verdictClass}}" id="verdict">{{verdict}}</div>
{{#error}}<div class="error" id="error">{{.}}</div>{{/error}}
<dl class="figures" id="totals">
{{#totals}}<div><dt>{{label}}</dt><dd data-figure="{{figure}}">{{value}}</dd></div>
{{/totals}}</dl>
<dl class="facts" id="facts">
{{#facts}}<dt>{{label}}</dt><dd data-figure="{{figure}}">{{value}}</dd>
{{/facts}}</dl>

<h2 id="gates">Quality gates</h2>
<p>{{gatesNote}}</p>
{{#hasGates}}<table>
<thead><tr><th>gate</th><th class="num">current</th><th class="num">new</th><th class="num">fall (rise)</th><th class="num">limit</th><th class="num">margin</th><th>fall (rise) against limit</th><th>verdict</th></tr></thead>
<tbody>
{{#gates}}<tr data-gate="{{gate}}"><td>{{gate}}</td><td class="num">{{current}}</td><td class="num">{{new}}</td><td class="num">{{drop}}</td><td class="num">{{limit}} %</td><td class="num">{{margin}}</td>
<td><svg width="204" height="14" role="img" aria-label="change {{drop}} against a limit of {{limit}} %"><rect class="track" x="2" y="2" width="200" height="10"/><rect class="drop{{^passed}} failed{{/passed}}" x="2" y="2" width="{{dropWidth}}" height="10"/><line class="limit" x1="{{limitX}}" x2="{{limitX}}" y1="0" y2="14" transform="translate(2,0)"/></svg></td>
<td class="{{status}}">{{status}}</td></tr>
{{/gates}}</tbody></table>{{/hasGates}}
{{#hasChecks}}<h3>Checks against current</h3>
<table><thead><tr><th>check</th><th>limit</th><th class="num">judged</th><th>verdict</th><th>closest to its limit</th></tr></thead><tbody>
{{#checks}}<tr data-check="{{check}}"><td>{{check}}</td><td>{{limit}}</td><td class="num">{{evaluated}}</td><td class="{{#passed}}passed{{/passed}}{{^passed}}failed{{/passed}}">{{verdict}}</td><td class="detail">{{closest}}</td></tr>
{{/checks}}</tbody></table>{{/hasChecks}}

<h2 id="feeds">Feeds</h2>
{{#hasFeeds}}<input type="search" id="feed-filter" placeholder="Filter feeds: file, pharmacy, adapter, outcome…" aria-label="Filter feeds">
<table id="feed-table">
<thead><tr><th class="sortable" data-type="text">file</th><th class="sortable" data-type="text">pharmacy</th><th class="sortable" data-type="text">adapter</th><th class="sortable" data-type="text">outcome</th><th class="sortable num" data-type="number">read</th><th class="sortable num" data-type="number">accepted</th><th class="sortable num" data-type="number">rejected</th></tr></thead>
<tbody>
{{#feeds}}<tr class="feed{{#attention}} attention{{/attention}}" data-outcome="{{outcome}}"><td class="mono">{{file}}</td><td>{{pharmacy}}</td><td>{{adapter}}</td><td>{{outcome}}{{#detail}}<div class="detail">{{.}}</div>{{/detail}}</td><td class="num">{{read}}</td><td class="num">{{accepted}}</td><td class="num">{{rejected}}</td></tr>
{{/feeds}}</tbody>
<tfoot>{{#feedTotals}}<tr class="total"><td>total</td><td></td><td></td><td></td><td class="num" data-figure="read">{{read}}</td><td class="num" data-figure="accepted">{{accepted}}</td><td class="num" data-figure="rejected">{{rejected}}</td></tr>{{/feedTotals}}</tfoot>
</table>{{/hasFeeds}}
{{^hasFeeds}}<p>No feed was read.</p>{{/hasFeeds}}

<h2 id="rejects">Rejects <span data-figure="reject_total">{{rejectTotal}}</span></h2>
{{#hasRejectGroups}}<table id="reject-reasons"><thead><tr><th>reason</th><th class="num">count</th><th>first sample</th><th>key</th><th>field</th><th>message</th></tr></thead><tbody>
{{/hasRejectGroups}}{{#rejectGroups}}<tr><td><b>{{code}}</b></td><td class="num" data-reason="{{code}}">{{count}}</td>{{#first}}<td class="mono">{{place}}</td><td class="mono">{{key}}</td><td>{{field}}</td><td>{{message}}{{/first}}{{#hasOthers}}<details><summary class="detail">{{othersCount}} more samples</summary>{{#others}}<div class="detail"><span class="mono">{{place}} {{key}}</span> {{field}} {{message}}</div>{{/others}}</details>{{/hasOthers}}{{#hasMore}}<div class="detail">… {{more}} more in the rejects file</div>{{/hasMore}}</td></tr>
{{/rejectGroups}}{{#hasRejectGroups}}</tbody></table>{{/hasRejectGroups}}
{{^rejectGroups}}<p>No record was rejected.</p>{{/rejectGroups}}

<h2 id="warnings">Warnings <span data-figure="warning_total">{{warningTotal}}</span></h2>
{{#hasWarningGroups}}<table id="warning-codes"><thead><tr><th>code</th><th class="num">count</th><th>first sample</th><th>key</th><th>message</th></tr></thead><tbody>
{{/hasWarningGroups}}{{#warningGroups}}<tr><td><b>{{code}}</b></td><td class="num" data-warning="{{code}}">{{count}}</td>{{#first}}<td class="mono">{{place}}</td><td class="mono">{{key}}</td><td>{{message}}{{/first}}{{#hasOthers}}<details><summary class="detail">{{othersCount}} more samples</summary>{{#others}}<div class="detail"><span class="mono">{{place}} {{key}}</span> {{message}}</div>{{/others}}</details>{{/hasOthers}}{{#hasMore}}<div class="detail">… {{more}} more in the warnings file</div>{{/hasMore}}</td></tr>
{{/warningGroups}}{{#hasWarningGroups}}</tbody></table>{{/hasWarningGroups}}
{{^warningGroups}}<p>No warning.</p>{{/warningGroups}}

<h2 id="map">Pharmacies on the map</h2>
{{#map}}<p class="legend"><span><svg width="10" height="10"><circle class="fresh" cx="5" cy="5" r="4"/></svg> fresh <b data-figure="map_fresh">{{fresh}}</b></span><span><svg width="10" height="10"><circle class="stale" cx="5" cy="5" r="4"/></svg> stale (carried over) <b data-figure="map_stale">{{stale}}</b></span><span>without coordinates <b data-figure="map_unplaced">{{unplaced}}</b></span></p>
<svg id="pharmacy-map" width="{{width}}" height="{{height}}" viewBox="0 0 {{width}} {{height}}" role="img" aria-label="pharmacies by their coordinates">
<rect x="0" y="0" width="{{width}}" height="{{height}}" fill="#fbfbfc" stroke="#dcdcde"/>
{{#points}}<circle class="{{#stale}}stale{{/stale}}{{^stale}}fresh{{/stale}}" cx="{{x}}" cy="{{y}}" r="{{#stale}}5{{/stale}}{{^stale}}3{{/stale}}" data-pharmacy="{{id}}"><title>{{id}} {{name}}{{#stale}} (stale){{/stale}}</title></circle>
{{/points}}</svg>{{/map}}
{{^map}}<p>No pharmacy has coordinates.</p>{{/map}}
{{#hasCarried}}<h3>Carried over</h3>
<table id="carried"><thead><tr><th>kind</th><th>key</th><th>what</th></tr></thead><tbody>
{{#carried}}<tr data-carried="{{kind}}"><td>{{kind}}</td><td class="mono">{{key}}</td><td class="{{#dropped}}dropped{{/dropped}}">{{detail}}</td></tr>
{{/carried}}</tbody></table>{{/hasCarried}}

<h2 id="changes">Changes against current</h2>
{{#diff}}<p>Against {{from}}.</p>
<dl class="figures">
{{#counts}}<div><dt>{{label}}</dt><dd data-figure="{{figure}}">{{value}}</dd></div>
{{/counts}}</dl>
<h3>Price changes by size (<span data-figure="histogram_total">{{histogramTotal}}</span>)</h3>
<svg id="price-histogram" width="640" height="230" viewBox="0 0 640 230" role="img" aria-label="price changes by size in percent">
<line x1="0" x2="630" y1="180.5" y2="180.5" stroke="#c3c4c7"/>
{{#histogram}}<rect class="bar{{#negative}} negative{{/negative}}" x="{{x}}" y="{{y}}" width="44" height="{{height}}" data-count="{{count}}"><title>{{label}}: {{count}}</title></rect>{{#edge}}<text x="{{edgeX}}" y="196" text-anchor="middle">{{.}}</text>{{/edge}}{{#count}}<text x="{{labelX}}" y="14" text-anchor="middle">{{count}}</text>{{/count}}
{{/histogram}}<text x="315" y="222" text-anchor="middle">change in price, percent (green: cheaper)</text></svg>
{{#hasLargest}}<h3>Largest price changes</h3>
<table id="largest-changes"><thead><tr><th>pharmacy/item</th><th>item</th><th>pharmacy</th><th class="num">was</th><th class="num">now</th><th class="num">change</th><th class="num">%</th></tr></thead><tbody>
{{#largest}}<tr><td class="mono">{{place}}</td><td>{{item}}</td><td>{{pharmacy}}</td><td class="num">{{old}}</td><td class="num">{{new}}</td><td class="num">{{delta}}</td><td class="num">{{percent}}</td></tr>
{{/largest}}</tbody></table>{{/hasLargest}}{{/diff}}
{{^diff}}<p>{{noDiff}}</p>{{/diff}}

<h2 id="phases">Phase timings</h2>
{{#hasPhases}}<svg id="phase-timings" width="760" height="{{phasesHeight}}" role="img" aria-label="time per phase">
{{#phases}}<text x="0" y="{{textY}}">{{label}}</text><rect class="bar" x="260" y="{{y}}" width="{{width}}" height="18"/><text x="570" y="{{textY}}" data-phase="{{label}}">{{value}}</text>
{{/phases}}</svg>{{/hasPhases}}
{{^hasPhases}}<p>The run stopped before its first phase ended.</p>{{/hasPhases}}

<script>
(function () {
  var table = document.getElementById('feed-table');
  if (!table) return;
  var body = table.tBodies[0];
  document.getElementById('feed-filter').addEventListener('input', function (event) {
    var words = event.target.value.toLowerCase().split(/\s+/).filter(Boolean);
    Array.prototype.forEach.call(body.rows, function (row) {
      var text = row.textContent.toLowerCase();
      row.style.display = words.every(function (word) { return text.indexOf(word) >= 0; }) ? '' : 'none';
    });
  });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, column) {
    cell.addEventListener('click', function () {
      var numeric = cell.getAttribute('data-type') === 'number';
      var ascending = cell.getAttribute('data-order') !== 'asc';
      cell.setAttribute('data-order', ascending ? 'asc' : 'desc');
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[column].textContent, y = b.cells[column].textContent;
        var order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
})();
</script>
</body>
</html>
"""#
}

private extension Substring {
    func occurrences(of tag: String) -> Int {
        components(separatedBy: tag).count - 1
    }
}
