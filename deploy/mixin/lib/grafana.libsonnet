// The few Grafana panel and variable shapes the dashboard uses (no grafonnet: this mixin needs nothing but
// the jsonnet binary). Panels get their id and position from `layout`: left to right, 24 columns wide, a row
// header or a panel that does not fit starts a new line below the tallest panel of the current one.
local datasource = { type: 'prometheus', uid: '${datasource}' };
local refIds = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
local noYes = { no: { text: 'no', color: 'red' }, yes: { text: 'yes', color: 'green' } };

// Labels a table never shows: the series name and what Kubernetes service discovery adds.
local hiddenColumns = {
  Time: true,
  __name__: true,
  endpoint: true,
  pod: true,
  service: true,
  namespace: true,
  container: true,
};

local targets(queries, table=false) = [
  {
    datasource: datasource,
    expr: if std.isString(q) then q else q[0],
    refId: refIds[i],
  }
  + (if std.isArray(q) then { legendFormat: q[1] } else {})
  + (if table then { instant: true, range: false, format: 'table' } else {})
  for i in std.range(0, std.length(queries) - 1)
  for q in [queries[i]]
];

local panel(type, title, w, h, description) =
  { type: type, title: title, datasource: datasource, gridPos: { h: h, w: w } }
  + (if description != null then { description: description } else {});

{
  datasource:: datasource,

  row(title):: { type: 'row', title: title, collapsed: false, gridPos: { h: 1, w: 24 }, panels: [] },

  // One number. `mappings` as Grafana's value mappings; `red` from that value up, green below.
  stat(title, expr, w=4, h=4, unit=null, description=null, mappings=null, redFrom=null)::
    panel('stat', title, w, h, description) {
      targets: targets([expr]),
      options: {
        reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
        colorMode: 'value',
        graphMode: 'area',
        textMode: 'auto',
      },
      fieldConfig: {
        defaults: (if unit != null then { unit: unit } else {})
                  + (if mappings != null then { mappings: mappings } else {})
                  + (if redFrom != null then {
                       thresholds: {
                         mode: 'absolute',
                         steps: [{ color: 'green', value: null }, { color: 'red', value: redFrom }],
                       },
                     } else {}),
        overrides: [],
      },
    },

  // Lines over time; each query is an expression or [expression, legend].
  timeseries(title, queries, w, h=8, unit=null, stacked=false, description=null)::
    panel('timeseries', title, w, h, description) {
      targets: targets(queries),
      options: {
        legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
        tooltip: { mode: 'multi', sort: 'desc' },
      },
      fieldConfig: {
        defaults: {
          custom: { fillOpacity: 10, showPoints: 'never' }
                  + (if stacked then { stacking: { mode: 'normal', group: 'A' } } else {}),
        } + (if unit != null then { unit: unit } else {}),
        overrides: [],
      },
    },

  // 0/1 series as no/yes bands over time.
  stateTimeline(title, queries, w=24, h=6, description=null)::
    panel('state-timeline', title, w, h, description) {
      targets: targets(queries),
      options: { showValue: 'never', mergeValues: true, rowHeight: 0.8 },
      fieldConfig: {
        defaults: {
          mappings: [{ type: 'value', options: { '0': noYes.no, '1': noYes.yes } }],
          thresholds: { mode: 'absolute', steps: [{ color: 'red', value: null }, { color: 'green', value: 1 }] },
        },
        overrides: [],
      },
    },

  // Instant queries merged into one table on their labels; `hide` and `rename` name columns.
  table(title, queries, w=24, h=8, hide={}, rename={}, description=null)::
    panel('table', title, w, h, description) {
      targets: targets(queries, table=true),
      options: { showHeader: true, cellHeight: 'sm' },
      fieldConfig: { defaults: {}, overrides: [] },
      transformations: (if std.length(queries) > 1 then [{ id: 'merge', options: {} }] else [])
                       + [{ id: 'organize', options: { excludeByName: hiddenColumns + hide, renameByName: rename } }],
    },

  // A query variable; `multi` ones offer "All", which matches any value and a missing label (.*).
  queryVariable(name, label, query, multi=true, hide=0):: {
    name: name,
    label: label,
    type: 'query',
    datasource: datasource,
    definition: query,
    query: { query: query, refId: 'PrometheusVariableQueryEditor-VariableQuery', qryType: 1 },
    refresh: 2,
    sort: 1,
    multi: multi,
    includeAll: multi,
    hide: hide,
    regex: '',
    current: if multi then { selected: true, text: ['All'], value: ['$__all'] } else {},
    options: [],
  } + (if multi then { allValue: '.*' } else {}),

  datasourceVariable:: {
    name: 'datasource',
    label: 'Data source',
    type: 'datasource',
    query: 'prometheus',
    hide: 0,
    current: {},
    options: [],
    refresh: 1,
    regex: '',
  },

  // Ids in order from 1, and grid positions. The accumulator is an array, not an object: jsonnet caches an
  // array element once computed but re-evaluates an object field on every access, which made the fold exponential.
  layout(panels)::
    local place(acc, p) =
      local x0 = acc[0], y0 = acc[1], lineHeight = acc[2];
      local wrap = p.type == 'row' || x0 + p.gridPos.w > 24;
      local x = if wrap then 0 else x0;
      local y = if wrap then y0 + lineHeight else y0;
      [x + p.gridPos.w, y, if wrap then p.gridPos.h else std.max(lineHeight, p.gridPos.h), acc[3] + [[x, y]]];
    local positions = std.foldl(place, panels, [0, 0, 0, []])[3];
    [
      panels[i] { id: i + 1, gridPos+: { x: positions[i][0], y: positions[i][1] } }
      for i in std.range(0, std.length(panels) - 1)
    ],
}
