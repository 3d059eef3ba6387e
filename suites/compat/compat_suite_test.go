package compat_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/suite"
)

var env = suite.Setup(targets.FS, targets.Default)

func TestCompat(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "compat")
}
