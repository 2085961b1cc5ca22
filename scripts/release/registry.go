package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The official MCP Registry's server.json format, and where its published
// schema can be had here. The registry publishes each schema version at
// schemaURL; its Go module embeds the same files (synced from the
// registry's static site), so a test or CI reads the schema from the module
// cache through the ordinary go command, pinned to registryModuleSum. The
// module is never imported: it is not a dependency of this one.
const (
	schemaVersion     = "2025-12-11"
	schemaURL         = "https://static.modelcontextprotocol.io/schemas/" + schemaVersion + "/server.schema.json"
	registryModule    = "github.com/modelcontextprotocol/registry"
	registryModuleVer = "v1.8.9"
	registryModuleSum = "h1:2pYB31q/uSezVbXu+D+Hr3HMimGFspgS1RTMljm1bVI="
	schemaInModule    = "internal/validators/schemas/" + schemaVersion + ".json"
	// serverDescription is the registry's one line (at most 100 characters).
	serverDescription = "SnowLuma's OneBot action catalog for MCP clients, and safe control of a running SnowLuma QQ bot."
)

// registryName is the server's name in the registry: the reverse-DNS form
// of the module path, which the registry ties to the GitHub account that
// publishes (github.com/snowluma/snowluma-mcp is io.github.snowluma/snowluma-mcp).
func registryName(module string) (string, error) {
	owner, repo, ok := strings.Cut(strings.TrimPrefix(module, "github.com/"), "/")
	if !strings.HasPrefix(module, "github.com/") || !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return "", fmt.Errorf("module path %q is not github.com/<owner>/<repo>: the registry name cannot be derived", module)
	}
	return "io.github." + owner + "/" + repo, nil
}

// serverJSON is the registry entry of a release: one mcpb package per
// bundle, each with its download URL on the release's GitHub page and its
// SHA-256, which hosts check before they run it. The MCP Registry knows no
// Go package type, so go install is not listed there (README, Install).
func serverJSON(module, version string, bundles []bundleFile) (map[string]any, error) {
	name, err := registryName(module)
	if err != nil {
		return nil, err
	}
	fields, err := userFields()
	if err != nil {
		return nil, err
	}
	var env []map[string]any
	for _, f := range fields {
		e := map[string]any{"name": f.v.Name, "description": f.v.Meaning, "isRequired": false}
		switch f.typ {
		case "number", "boolean":
			e["format"] = f.typ
		case "directory":
			e["format"] = "filepath"
		}
		if f.v.Default != "" {
			e["default"] = f.v.Default
		}
		if f.sensitive {
			e["isSecret"] = true
		}
		env = append(env, e)
	}
	var packages []map[string]any
	for _, b := range bundles {
		packages = append(packages, map[string]any{
			"registryType":         "mcpb",
			"identifier":           "https://" + module + "/releases/download/v" + version + "/" + b.name,
			"version":              version,
			"fileSha256":           b.sha256,
			"transport":            map[string]any{"type": "stdio"},
			"environmentVariables": env,
		})
	}
	return map[string]any{
		"$schema":     schemaURL,
		"name":        name,
		"title":       displayName,
		"description": serverDescription,
		"version":     version,
		"repository":  map[string]any{"url": "https://" + module, "source": "github"},
		"websiteUrl":  "https://" + module,
		"packages":    packages,
	}, nil
}

// A bundleFile is one .mcpb of a release: its file name and SHA-256.
type bundleFile struct {
	name, sha256 string
}

// publishedSchema returns the registry's published server.json schema
// from the module cache, fetching the pinned module version with the go
// command when it is not there yet.
func publishedSchema() ([]byte, error) {
	cmd := exec.Command("go", "mod", "download", "-json", registryModule+"@"+registryModuleVer)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Sum, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return nil, fmt.Errorf("go mod download %s@%s: %s", registryModule, registryModuleVer, info.Error)
	}
	if err != nil {
		return nil, fmt.Errorf("go mod download %s@%s: %w: %s", registryModule, registryModuleVer, err, strings.TrimSpace(stderr.String()))
	}
	if info.Sum != registryModuleSum {
		return nil, fmt.Errorf("%s@%s has checksum %s, want %s", registryModule, registryModuleVer, info.Sum, registryModuleSum)
	}
	b, err := os.ReadFile(filepath.Join(info.Dir, filepath.FromSlash(schemaInModule)))
	if err != nil {
		return nil, fmt.Errorf("the registry's schema %s: %w", schemaVersion, err)
	}
	var id struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(b, &id); err != nil || id.ID != schemaURL {
		return nil, fmt.Errorf("%s is not the schema published at %s (its $id is %q)", schemaInModule, schemaURL, id.ID)
	}
	return b, nil
}

// githubRelease is the path of a GitHub release asset, which the registry
// requires of an mcpb package's identifier.
var githubRelease = regexp.MustCompile(`^/[A-Za-z0-9]([A-Za-z0-9-]{0,37}[A-Za-z0-9])?/[A-Za-z0-9._-]+/releases/download/[^/]+/[^/]+\.mcpb$`)

// validateServerJSON checks data against the registry's published schema,
// and each mcpb package against the rules the registry adds when it
// accepts one (documented with its publisher): an https GitHub release
// asset whose URL says mcp, with its SHA-256, and no registryBaseUrl.
func validateServerJSON(data, schema []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("the registry's schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return err
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return fmt.Errorf("compiling the registry's schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("server.json is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("server.json does not match the registry's schema %s: %w", schemaVersion, err)
	}
	var entry struct {
		Schema   string `json:"$schema"`
		Packages []struct {
			RegistryType    string `json:"registryType"`
			RegistryBaseURL string `json:"registryBaseUrl"`
			Identifier      string `json:"identifier"`
			FileSha256      string `json:"fileSha256"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &entry); err != nil {
		return err
	}
	if entry.Schema != schemaURL {
		return fmt.Errorf("server.json's $schema is %q, want %s", entry.Schema, schemaURL)
	}
	if len(entry.Packages) == 0 {
		return errors.New("server.json lists no package")
	}
	for _, p := range entry.Packages {
		u, err := url.Parse(p.Identifier)
		switch {
		case p.RegistryType != "mcpb":
			return fmt.Errorf("package %s: registryType %q, want mcpb", p.Identifier, p.RegistryType)
		case p.FileSha256 == "":
			return fmt.Errorf("package %s: an mcpb package needs fileSha256", p.Identifier)
		case p.RegistryBaseURL != "":
			return fmt.Errorf("package %s: an mcpb package must not have registryBaseUrl", p.Identifier)
		case err != nil || u.Scheme != "https" || u.Host != "github.com" || !githubRelease.MatchString(u.Path):
			return fmt.Errorf("package %s: not an https GitHub release asset (/<owner>/<repo>/releases/download/<tag>/<file>.mcpb)", p.Identifier)
		case !strings.Contains(strings.ToLower(p.Identifier), "mcp"):
			return fmt.Errorf("package %s: the registry wants \"mcp\" in an mcpb URL", p.Identifier)
		}
	}
	return nil
}
