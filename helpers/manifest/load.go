package manifest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads and validates a manifest from a file path.
func Load(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("target manifest: %w", err)
	}
	return Parse(path, b)
}

// LoadFS reads a manifest from an embedded file system (the kit's default targets).
func LoadFS(fsys fs.FS, name string) (*Manifest, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("target manifest: %w", err)
	}
	return Parse("embedded:"+name, b)
}

// LoadRef loads the manifest a user named: a path, "embedded:NAME", or "" for defaultName in
// embedded.
func LoadRef(ref string, embedded fs.FS, defaultName string) (*Manifest, error) {
	if embedded == nil && (ref == "" || strings.HasPrefix(ref, EmbeddedPrefix)) {
		return nil, fmt.Errorf("target manifest %q: no embedded catalog in this program; name a manifest file", ref)
	}
	switch {
	case ref == "":
		return LoadFS(embedded, defaultName)
	case strings.HasPrefix(ref, EmbeddedPrefix):
		return LoadFS(embedded, strings.TrimPrefix(ref, EmbeddedPrefix))
	}
	return Load(ref)
}

// Parse decodes strictly (a misspelt key is an error, not a silently missing setting) and
// validates.
func Parse(source string, b []byte) (*Manifest, error) {
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("target manifest %s: %w", source, err)
	}
	m.Source = source
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}
