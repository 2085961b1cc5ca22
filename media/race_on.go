//go:build race

package media

// raceSlowdown stretches DefaultTimeout in a build with the race detector,
// which runs the decoders ten to twenty times slower: the limit is meant
// for the operator's binary, and a test of a large picture under -race
// would otherwise meet it.
const raceSlowdown = 20
