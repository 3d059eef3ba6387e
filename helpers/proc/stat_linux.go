package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // gone between the two looks
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// startTime is field 22 of /proc/PID/stat (clock ticks since boot); 0 when it cannot be read.
func startTime(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 22-2 {
		return 0
	}
	v, _ := strconv.ParseUint(string(f[22-3]), 10, 64)
	return v
}
