package media

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/rawcmd"
)

// validateCommand checks a job of a command type (raw.ffmpeg, ffmpeg):
// its named inputs, its params, and its command against the parser's
// allowlist (server/rawcmd). Named inputs given as {"url": …} or
// {"ref": …}, as Rendobar's clients send them, are rewritten in place to
// the plain string every other job stores. maxPixels bounds the pictures
// the command asks for (--max-image-pixels).
func validateCommand(t *catalog.Type, inputs, params map[string]any, assetMedia func(id string) (string, bool), maxPixels int64) []catalog.Problem {
	var out []catalog.Problem
	names := make([]string, 0, len(inputs))
	for k := range inputs {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > rawcmd.MaxInputs {
		out = append(out, catalog.Problem{Path: "inputs", Message: fmt.Sprintf("must have at most %d entries", rawcmd.MaxInputs)})
	}
	named := map[string]bool{}
	for _, name := range names {
		path := fmt.Sprintf("inputs[%q]", name)
		if !rawcmd.NamePattern.MatchString(name) || strings.HasPrefix(name, "input-") || strings.Contains(name, "..") {
			out = append(out, catalog.Problem{Path: path, Message: "a named input is a bare file name (letters, digits, '.', '_', '-'; not input-…), staged in the job's folder under that name"})
			continue
		}
		v, ok := inputs[name].(string)
		if m, isObj := inputs[name].(map[string]any); isObj && len(m) == 1 {
			if s, isStr := m["url"].(string); isStr {
				v, ok = s, true
			} else if s, isStr := m["ref"].(string); isStr {
				v, ok = s, true
			}
			if ok {
				inputs[name] = v
			}
		}
		switch {
		case ok && ident.IsAsset(v):
			if _, found := assetMedia(v); !found {
				out = append(out, catalog.Problem{Path: path, Message: fmt.Sprintf("no asset has the id %q", v)})
			}
		case !ok || !fetch.IsHTTPURL(v):
			out = append(out, catalog.Problem{Path: path, Message: "must be an absolute http or https URL (an upload's downloadUrl too), an asset id, or {\"url\": …} / {\"ref\": …}"})
		}
		named[name] = true
	}
	if ps := t.ValidateParams("params", params); len(ps) > 0 {
		return append(out, ps...)
	}
	command, _ := params["command"].(string)
	format, _ := params["outputFormat"].(string)
	cmd, err := rawcmd.Parse(command, named, maxPixels, format)
	if err != nil {
		return append(out, catalog.Problem{Path: "params.command", Message: err.Error()})
	}
	for _, in := range cmd.Inputs {
		if in.Kind == rawcmd.Asset {
			if _, found := assetMedia(in.Ref); !found {
				out = append(out, catalog.Problem{Path: "params.command", Message: fmt.Sprintf("-i %s: no asset has the id %q", in.Ref, in.Ref)})
			}
		}
	}
	return out
}
