package launcher

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"
)

// A translator (spawn_spec_translate) is the launcher's code, so what it prints is a claim. It is
// judged by what each translation means, read back by the kit's own JSON reader and compared with
// the spec the kit wrote, field by field. Never by a decoder the manifest declares: a translator
// that wrote "no cpu_class" as "normal" plus a marker, with a decoder that read the marker back
// as "none", would round-trip every spec while the host saw "normal". Never by the specs staying
// distinct: a translator that defaulted cpu_class to normal, dropped unknown fields and tagged
// every other spec's env kept them distinct and passed two known-bad hosts (issue 68).

// maxSpecDepth bounds how deep a translation may nest: a spawn spec nests two levels; a
// translator's output is the launcher's, and read by the kit.
const maxSpecDepth = 32

// SpawnSpecChanges says, field by field, how host (a translation of the spawn spec kit, in the
// host's format) means something other than kit; none when it means the same. An error says host
// is not one JSON object the kit reads alike with any host (readSpecJSON). For example,
//
//	SpawnSpecChanges([]byte(`{"argv":["h"]}`), []byte(`{"argv":["h"],"cpu_class":"normal"}`))
//
// gives [`cpu_class: the kit's spec has none, the translation "normal"`].
func SpawnSpecChanges(kit, host []byte) ([]string, error) {
	k, err := readSpecJSON(kit)
	if err != nil {
		return nil, fmt.Errorf("the kit's own spawn spec does not read back (%v): %.200q", err, kit)
	}
	h, err := readSpecJSON(host)
	if err != nil {
		return nil, &unreadableError{err}
	}
	return specChanges(k, h), nil
}

// unreadableError is a translation the kit cannot read back.
type unreadableError struct{ error }

// readSpecJSON reads b as a host reads one JSON object: valid UTF-8, one object and nothing after
// it but blanks, no key twice at any level (JSON parsers differ on which of two a host keeps, so
// the kit's reading and the host's could differ), numbers as written.
func readSpecJSON(b []byte) (map[string]any, error) {
	if !utf8.Valid(b) {
		return nil, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a JSON %s, not an object", jsonKind(v))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more after the object")
	}
	return obj, nil
}

// readValue reads one JSON value from dec, token by token, so that a key given twice is seen.
func readValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxSpecDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxSpecDepth)
	}
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		obj := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, ok := k.(string) // the decoder gives a key as a string or an error; a panic here would end the kit
			if !ok {
				return nil, fmt.Errorf("a key %v that is not a string", k)
			}
			if _, twice := obj[key]; twice {
				return nil, fmt.Errorf("the key %q twice", key)
			}
			if obj[key], err = readValue(dec, depth+1); err != nil {
				return nil, err
			}
		}
		_, err := dec.Token() // the closing brace
		return obj, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := readValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token() // the closing bracket
		return list, err
	}
	return t, nil
}

// specChanges says, field by field, how a translation (host) means something other than the spec
// the kit wrote (kit); none when it means the same. What a format may change: key order, spacing,
// how a string is escaped, how a number is written (3 or 3.0), and env's shape (NAME=VALUE
// strings, or an object of them; none or empty alike). Nothing else: a field gained or lost
// (cpu_class among them) or any other value changed is a change of meaning.
func specChanges(kit, host map[string]any) []string {
	keys := map[string]bool{}
	for k := range kit {
		keys[k] = true
	}
	for k := range host {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		a, inKit := kit[k]
		b, inHost := host[k]
		switch {
		case k == "env" && sameEnv(a, b):
		case k == "env":
			out = append(out, envChange(a, b, inKit, inHost))
		case !inKit || !inHost || !sameJSON(a, b):
			out = append(out, fmt.Sprintf("%s: the kit's spec has %s, the translation %s", k, shown(a, inKit), shown(b, inHost)))
		}
	}
	return out
}

// sameEnv says whether two env fields give a harness the same environment: equal lists of
// NAME=VALUE strings, or an object of the same names and values; none, [] and {} alike.
func sameEnv(a, b any) bool {
	if la, ok := a.([]any); ok && allStrings(la) && sameJSON(a, b) {
		return true // the same list, in order, a name given twice and all
	}
	ma, aok := envMap(a)
	mb, bok := envMap(b)
	return aok && bok && reflect.DeepEqual(ma, mb)
}

// envChange says how two env fields differ (sameEnv false): entry by entry where both read as
// names and values, so that one entry added to a long environment shows.
func envChange(a, b any, inKit, inHost bool) string {
	ma, aok := envMap(a)
	mb, bok := envMap(b)
	if !aok || !bok {
		return fmt.Sprintf("env: the kit's spec has %s, the translation %s (a translator may give env as NAME=VALUE strings or an object of them, each kept exactly)", shown(a, inKit), shown(b, inHost))
	}
	names := map[string]bool{}
	for n := range ma {
		names[n] = true
	}
	for n := range mb {
		names[n] = true
	}
	var sorted, d []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		va, ina := ma[n]
		vb, inb := mb[n]
		switch {
		case !inb:
			d = append(d, fmt.Sprintf("%s dropped", shown(n+"="+va, true)))
		case !ina:
			d = append(d, fmt.Sprintf("%s added", shown(n+"="+vb, true)))
		case va != vb:
			d = append(d, fmt.Sprintf("%s made %s", shown(n+"="+va, true), shown(n+"="+vb, true)))
		}
	}
	return "env: the translation gives the harness another environment than the kit's spec: " + strings.Join(d, ", ")
}

// envMap is an env field as names and values: nil for none; false when it is neither a list of
// NAME=VALUE strings with each name once nor an object of strings.
func envMap(v any) (map[string]string, bool) {
	m := map[string]string{}
	switch e := v.(type) {
	case nil:
		return m, true
	case []any:
		for _, s := range e {
			str, ok := s.(string)
			name, value, found := strings.Cut(str, "=")
			if _, twice := m[name]; !ok || !found || twice {
				return nil, false
			}
			m[name] = value
		}
	case map[string]any:
		for name, s := range e {
			str, ok := s.(string)
			if !ok {
				return nil, false
			}
			m[name] = str
		}
	default:
		return nil, false
	}
	return m, true
}

func allStrings(l []any) bool {
	for _, v := range l {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// sameJSON compares two values read by readValue: numbers by value, exactly (not as float64,
// which would take 3 and 3.0000000000000001 for one number a host may not).
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, okx := new(big.Rat).SetString(x.String())
		ry, oky := new(big.Rat).SetString(y.String())
		return okx && oky && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	}
	return a == b // string, bool, nil
}

// shown is a field's value for a receipt: "none" when the field is absent.
func shown(v any, present bool) string {
	if !present {
		return "none"
	}
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}
