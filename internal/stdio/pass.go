package stdio

// Pass returns a stand-in for result, for a MarshalJSON method to return
// in place of result; Write puts result where the stand-in is (see
// mcpseam.Handoff, which holds the workaround and says what it relies on).
// result must be one complete JSON object this process encoded: valid and
// without HTML escaping, as the SDK would encode it. The stand-in is only
// meaningful to this transport's Write, so a server may pass results only
// while its one session runs on this transport.
func (t *Transport) Pass(result []byte) []byte { return t.c.passed.Pass(result) }

// Buffer returns an empty buffer for a result of about size bytes, to be
// encoded into and passed; Write takes it back once the result is written
// (see mcpseam.Handoff.Buffer).
func (t *Transport) Buffer(size int) []byte { return t.c.passed.Buffer(size) }
