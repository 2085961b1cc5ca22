//go:build !race

package media

// raceSlowdown is 1 in an ordinary build (see race_on.go).
const raceSlowdown = 1
