package tasks

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A Scope is the configuration a task directory belongs to. Records made
// under one scope mean nothing under another (a different SnowLuma, account
// or mode), so a directory is bound to its first scope and refused under
// any other. The token is used only to derive the digest: it is never
// written anywhere.
type Scope struct {
	Mode     string
	Endpoint string
	Token    string
}

// scopeFile binds a directory to a scope.
const scopeFile = "scope.json"

// scopeIterations is the PBKDF2 work factor of the scope digest: enough
// that the digest is no cheap oracle for guessing the token, small enough
// for start-up.
const scopeIterations = 60_000

type scopeRecord struct {
	Version    int    `json:"version"`
	Salt       []byte `json:"salt"`
	Iterations int    `json:"iterations"`
	Digest     []byte `json:"digest"`
}

// ErrScopeMismatch reports a directory bound to another configuration.
var ErrScopeMismatch = errors.New("the task directory belongs to another configuration (mode, endpoint or token)")

func (s Scope) digest(salt []byte, iter int) ([]byte, error) {
	secret := s.Mode + "\x00" + s.Endpoint + "\x00" + s.Token
	return pbkdf2.Key(sha256.New, secret, append([]byte("snowluma-mcp task scope v1\x00"), salt...), iter, 32)
}

// bindScope binds dir to s on first use and checks it afterwards.
func bindScope(dir string, s Scope) error {
	bound, err := checkScope(dir, s)
	if err != nil || bound {
		return err
	}
	salt := make([]byte, 16)
	rand.Read(salt)
	d, err := s.digest(salt, scopeIterations)
	if err != nil {
		return err
	}
	out, _ := json.Marshal(scopeRecord{Version: 1, Salt: salt, Iterations: scopeIterations, Digest: d})
	return writeAtomic(dir, scopeFile, out)
}

// checkScope reports whether dir is bound yet and, when it is, whether to
// s (ErrScopeMismatch if not). It writes nothing.
func checkScope(dir string, s Scope) (bound bool, err error) {
	path := filepath.Join(dir, scopeFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("read %s: %w", scopeFile, err)
	}
	var rec scopeRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil || rec.Version != 1 || len(rec.Salt) < 16 || rec.Iterations < 1 || len(rec.Digest) != 32 {
		return true, fmt.Errorf("%s is corrupted; choose a new private task directory (the old one keeps its history)", scopeFile)
	}
	d, err := s.digest(rec.Salt, rec.Iterations)
	if err != nil {
		return true, err
	}
	if subtle.ConstantTimeCompare(d, rec.Digest) != 1 {
		return true, ErrScopeMismatch
	}
	return true, nil
}
