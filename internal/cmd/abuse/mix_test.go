package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMixParts: -mix selects parts of the siege mix by name, all three
// when empty, and refuses a name it does not know.
func TestMixParts(t *testing.T) {
	assert.Equal(t, map[string]bool{mixSlow: true, mixNonReaders: true, mixSpray: true}, mixParts(""))
	assert.Equal(t, map[string]bool{mixNonReaders: true}, mixParts("non-readers"))
	assert.Equal(t, map[string]bool{mixSlow: true, mixSpray: true}, mixParts("slow, spray"))
	assert.Nil(t, mixParts("slow,readers"))
	assert.Nil(t, mixParts("slow,"))
}
