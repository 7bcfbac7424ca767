package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kinohq/kino/server/share"
	"github.com/kinohq/kino/server/usage"
)

// poolCollector reads the node's shared pools on each scrape: their sizes,
// and what each organisation holds and has waiting, so that an operator
// sees who fills a pool (docs/metrics.md).
type poolCollector struct {
	pools map[string]*share.Pool
	named func(string) bool
	size  *prometheus.Desc
	slots *prometheus.Desc
}

func newPoolCollector(pools map[string]*share.Pool, named func(string) bool) *poolCollector {
	return &poolCollector{pools: pools, named: named,
		size: prometheus.NewDesc("kino_pool_size", "Slots of a pool of this process shared between organisations (--max-previews, --upload-workers, --max-watch-streams): what one organisation alone may hold; with others it may lend as many again.",
			[]string{"pool"}, nil),
		slots: prometheus.NewDesc("kino_pool_slots", "Slots of a shared pool each organisation holds (state held) and its requests waiting for one (state waiting), by organisation as kino_org_jobs_total labels them.",
			[]string{"pool", "org", "state"}, nil),
	}
}

// Describe sends the descriptions of both figures.
func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.slots
}

// Collect sends each pool's size and its organisations' use, those not
// named added up as "other".
func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for name, p := range c.pools {
		ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(p.Size()), name)
		byLabel := map[string]share.Use{}
		for o, u := range p.Uses() {
			label := usage.Other
			if c.named(o) {
				label = o
			}
			sum := byLabel[label]
			sum.Held += u.Held
			sum.Waiting += u.Waiting
			byLabel[label] = sum
		}
		for label, u := range byLabel {
			ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(u.Held), name, label, "held")
			ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(u.Waiting), name, label, "waiting")
		}
	}
}
