package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/neardup/neardup"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics holds the server's Prometheus collectors, in a registry of its
// own so that several servers can run in one process (as tests do).
type metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	documents  prometheus.Counter
	duplicates prometheus.Counter
	inserted   prometheus.Counter
	rejected   prometheus.Counter
	// refused counts the requests refused before any route saw them,
	// by the error's code (host_not_allowed, cross_origin).
	refused *prometheus.CounterVec
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "neardup_http_requests_total",
			Help: "HTTP requests served, by route pattern and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "neardup_http_request_duration_seconds",
			Help:    "Time to serve an HTTP request, by route pattern.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		documents: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "neardup_documents_checked_total",
			Help: "Documents checked through POST /v1/documents and /v1/documents/batch.",
		}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "neardup_duplicates_found_total",
			Help: "Checked documents found to be near-duplicates of a stored one.",
		}),
		inserted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "neardup_documents_inserted_total",
			Help: "Checked documents stored as new.",
		}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "neardup_http_overloaded_total",
			Help: "Requests refused with 429 because MaxInFlight requests were in progress.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "neardup_http_refused_total",
			Help: "Requests refused with 403 before any route: host_not_allowed (a Host header the server does not answer to, see --allowed-hosts) or cross_origin (a browser's cross-site write).",
		}, []string{"code"}),
	}
	for _, code := range []string{"host_not_allowed", "cross_origin"} {
		m.refused.WithLabelValues(code) // 0 until the first, so a rate can be taken
	}
	m.reg.MustRegister(m.requests, m.latency, m.documents, m.duplicates, m.inserted, m.rejected, m.refused,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "neardup_http_in_flight_requests",
			Help: "API requests being served now.",
		}, func() float64 { return float64(s.inflight.Load()) }),
		&statsCollector{s: s},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// routeMetrics are one route's collectors, resolved once so that a request
// costs no label lookups beyond its status code.
type routeMetrics struct {
	latency prometheus.Observer
	vec     *prometheus.CounterVec
	route   string
	byCode  map[int]prometheus.Counter
}

func (m *metrics) route(pattern string) *routeMetrics {
	rm := &routeMetrics{latency: m.latency.WithLabelValues(pattern), vec: m.requests, route: pattern, byCode: make(map[int]prometheus.Counter)}
	// Pre-create the common codes so the map is never written after
	// construction and needs no lock.
	for _, c := range []int{200, 400, 404, 413, 429, 500, 501, 503, 507} {
		rm.byCode[c] = m.requests.WithLabelValues(pattern, strconv.Itoa(c))
	}
	return rm
}

func (rm *routeMetrics) observe(code int, d time.Duration) {
	rm.latency.Observe(d.Seconds())
	if c, ok := rm.byCode[code]; ok {
		c.Inc()
		return
	}
	rm.vec.WithLabelValues(rm.route, strconv.Itoa(code)).Inc()
}

func (m *metrics) countResult(r neardup.Result) {
	m.documents.Inc()
	if r.Duplicate {
		m.duplicates.Inc()
	}
	if r.Inserted {
		m.inserted.Inc()
	}
}

// statsCollector exports the engine's Stats at each scrape.
type statsCollector struct{ s *Server }

// statMetric is one engine statistic exported as a metric.
type statMetric struct {
	desc  *prometheus.Desc
	typ   prometheus.ValueType
	value func(neardup.Stats) float64
}

func statMetrics() []statMetric {
	g, c := prometheus.GaugeValue, prometheus.CounterValue
	m := func(name, help string, typ prometheus.ValueType, v func(neardup.Stats) float64) statMetric {
		return statMetric{prometheus.NewDesc(name, help, nil, nil), typ, v}
	}
	return []statMetric{
		m("neardup_documents", "Documents stored (the index size).", g, func(s neardup.Stats) float64 { return float64(s.Documents) }),
		m("neardup_short_documents", "Stored documents also in the short-text index.", g, func(s neardup.Stats) float64 { return float64(s.ShortDocuments) }),
		m("neardup_index_bytes", "Memory the fingerprint indexes hold.", g, func(s neardup.Stats) float64 { return float64(s.IndexBytes) }),
		m("neardup_store_bytes", "Estimated size of the store on disk (or in memory).", g, func(s neardup.Stats) float64 { return float64(s.StoreBytes) }),
		m("neardup_store_syncs_total", "Synced store commits that carried documents (group commit shares one among concurrent writes).", c, func(s neardup.Stats) float64 { return float64(s.Syncs) }),
		m("neardup_expired_total", "Documents removed by the retention window.", c, func(s neardup.Stats) float64 { return float64(s.Expired) }),
		m("neardup_deleted_total", "Documents removed by Delete.", c, func(s neardup.Stats) float64 { return float64(s.Deleted) }),
		m("neardup_engine_checks_total", "Documents the engine checked (every front end).", c, func(s neardup.Stats) float64 { return float64(s.Checks) }),
		m("neardup_engine_inserts_total", "Documents the engine stored.", c, func(s neardup.Stats) float64 { return float64(s.Inserts) }),
		m("neardup_engine_duplicates_total", "Documents the engine found to be near-duplicates.", c, func(s neardup.Stats) float64 { return float64(s.Duplicates) }),
		m("neardup_engine_candidates_total", "Index candidates verified.", c, func(s neardup.Stats) float64 { return float64(s.Candidates) }),
		m("neardup_engine_rejected_total", "Index candidates the policy turned down.", c, func(s neardup.Stats) float64 { return float64(s.Rejected) }),
		m("neardup_fingerprint_bits", "Width of the engine's fingerprints.", g, func(s neardup.Stats) float64 { return float64(s.Bits) }),
		m("neardup_index_k", "Hamming distance the index answers for.", g, func(s neardup.Stats) float64 { return float64(s.K) }),
		m("neardup_retention_seconds", "Retention window (0: kept forever).", g, func(s neardup.Stats) float64 { return s.Retention }),
		m("neardup_open_seconds", "Time Open took to restore the index.", g, func(s neardup.Stats) float64 { return s.OpenSeconds }),
		m("neardup_store_free_bytes", "Free space of the store's file system when last measured (0: not measured, as in memory); under the engine's margin, posts get 507.", g, func(s neardup.Stats) float64 { return float64(s.FreeBytes) }),
		m("neardup_store_failed", "1 once a write to the store failed and the engine stopped (restart to serve again), 0 before.", g, func(s neardup.Stats) float64 {
			if s.Failure != "" {
				return 1
			}
			return 0
		}),
	}
}

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.s.statMetrics {
		ch <- m.desc
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	ref := c.s.engine.Load()
	if ref == nil {
		return
	}
	st := ref.Stats()
	for _, m := range c.s.statMetrics {
		ch <- prometheus.MustNewConstMetric(m.desc, m.typ, m.value(st))
	}
}
