// Package dag checks the graph of a pipeline: media jobs (its nodes) whose
// edges copy an output field of one job into an input field of another,
// with no cycle. Validation reports every problem at once, each with its
// JSON path, so a client fixes a pipeline in one round.
package dag

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/rawcmd"
)

// Limits bound the size of a pipeline.
const (
	MaxNodes       = 50
	MaxEdges       = 200
	MaxName        = 200
	MaxDescription = 2000
)

// Node is one job of a pipeline.
type Node struct {
	ID      string
	JobType string
	Params  map[string]any
}

// Edge copies the SourceField output of From into the TargetField input of To.
type Edge struct {
	From, To                 string
	SourceField, TargetField string
}

// Spec is a pipeline as submitted.
type Spec struct {
	Name, Description string
	Nodes             []Node
	Edges             []Edge
}

var nodeID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// Validate returns every problem of the pipeline; none means it is valid.
// maxPixels bounds the pictures a client's own command may ask for (the
// node's --max-image-pixels).
func Validate(s Spec, maxPixels int64) []catalog.Problem {
	var out []catalog.Problem
	add := func(path, format string, args ...any) {
		out = append(out, catalog.Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case strings.TrimSpace(s.Name) == "":
		add("name", "is required")
	case len(s.Name) > MaxName:
		add("name", "must be at most %d characters", MaxName)
	}
	if len(s.Description) > MaxDescription {
		add("description", "must be at most %d characters", MaxDescription)
	}
	if len(s.Nodes) == 0 {
		add("nodes", "must have at least one node")
	}
	if len(s.Nodes) > MaxNodes {
		add("nodes", "has %d nodes; at most %d are allowed", len(s.Nodes), MaxNodes)
		return out
	}
	if len(s.Edges) > MaxEdges {
		add("edges", "has %d edges; at most %d are allowed", len(s.Edges), MaxEdges)
		return out
	}

	types := map[string]*catalog.Type{} // node id -> its type, for valid nodes
	seen := map[string]int{}
	for i, n := range s.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		switch {
		case n.ID == "":
			add(p+".id", "is required")
		case !nodeID.MatchString(n.ID):
			add(p+".id", "must start with a letter and hold only letters, digits, _ and - (at most 64)")
		default:
			if j, dup := seen[n.ID]; dup {
				add(p+".id", "%q is already the id of nodes[%d]", n.ID, j)
			} else {
				seen[n.ID] = i
			}
		}
		t, ok := catalog.Lookup(n.JobType)
		if !ok {
			if n.JobType == "" {
				add(p+".jobType", "is required")
			} else {
				add(p+".jobType", "unknown job type %q; GET /jobs/types lists them", n.JobType)
			}
			continue
		}
		params := n.Params
		if params == nil {
			params = map[string]any{}
		}
		ps := t.ValidateParams(p+".params", params)
		out = append(out, ps...)
		if t.Command && len(ps) == 0 {
			// A client's own command is checked by the same parser as a
			// job's, at creation (and again when each job runs).
			command, _ := params["command"].(string)
			format, _ := params["outputFormat"].(string)
			if _, err := rawcmd.Parse(command, nil, maxPixels, format); err != nil {
				add(p+".params.command", "%s", err.Error())
			}
		}
		if _, dup := types[n.ID]; !dup && n.ID != "" {
			types[n.ID] = t
		}
	}

	fed := map[[2]string]int{} // (node, input) -> edge index that feeds it
	adj := map[string][]string{}
	for i, e := range s.Edges {
		p := fmt.Sprintf("edges[%d]", i)
		_, fromOK := seen[e.From]
		_, toOK := seen[e.To]
		if !fromOK {
			add(p+".from", "no node has the id %q", e.From)
		}
		if !toOK {
			add(p+".to", "no node has the id %q", e.To)
		}
		if fromOK && toOK && e.From == e.To {
			add(p+".to", "an edge cannot lead from node %q back to itself", e.From)
			continue
		}
		var out_, in catalog.Field
		var outOK, inOK bool
		if t := types[e.From]; fromOK && t != nil {
			if out_, outOK = t.Output(e.SourceField); !outOK {
				add(p+".outputMapping.sourceField", "%q is not an output of %s (outputs: %s)", e.SourceField, t.Name, names(t.Outputs))
			}
		}
		if t := types[e.To]; toOK && t != nil {
			if in, inOK = t.Input(e.TargetField); !inOK {
				add(p+".outputMapping.targetField", "%q is not an input of %s (inputs: %s)", e.TargetField, t.Name, names(t.Inputs))
			}
		}
		if outOK && inOK && !catalog.Compatible(out_, in) {
			add(p+".outputMapping", "%s.%s carries %s, but %s.%s takes %s", e.From, e.SourceField,
				strings.Join(out_.Media, " or "), e.To, e.TargetField, strings.Join(in.Media, " or "))
		}
		if inOK {
			key := [2]string{e.To, e.TargetField}
			if j, dup := fed[key]; dup {
				add(p+".outputMapping.targetField", "input %s of node %q is already fed by edges[%d]", e.TargetField, e.To, j)
			} else {
				fed[key] = i
			}
		}
		if fromOK && toOK {
			adj[e.From] = append(adj[e.From], e.To)
		}
	}
	for _, cycle := range cycles(s.Nodes, adj) {
		add("edges", "the nodes %s form a cycle", strings.Join(cycle, " -> "))
	}
	return out
}

func names(fs []catalog.Field) string {
	var n []string
	for _, f := range fs {
		n = append(n, f.Name)
	}
	return strings.Join(n, ", ")
}

// cycles finds cycles with a depth-first search, one per back edge, each
// written from its first node back to it, in node order so reports are stable.
func cycles(nodes []Node, adj map[string][]string) [][]string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var (
		stack []string
		found [][]string
		seen  = map[string]bool{}
	)
	var visit func(n string)
	visit = func(n string) {
		color[n] = grey
		stack = append(stack, n)
		for _, m := range adj[n] {
			switch color[m] {
			case white:
				visit(m)
			case grey:
				i := slices.Index(stack, m)
				cyc := append(slices.Clone(stack[i:]), m)
				key := slices.Clone(cyc[:len(cyc)-1])
				sort.Strings(key)
				if k := strings.Join(key, "\x00"); !seen[k] {
					seen[k] = true
					found = append(found, cyc)
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
	}
	for _, n := range nodes {
		if color[n.ID] == white && n.ID != "" {
			visit(n.ID)
		}
	}
	return found
}
