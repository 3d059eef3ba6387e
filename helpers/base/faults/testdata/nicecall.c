/* A class call through one ABI, N times (issue 54's tests: helpers/base/faults and helpers/runner).
 * nicecall ABI N CMD...: makes setpriority(PRIO_PROCESS, 0, 10) N times through ABI ("native",
 * "i386" by int $0x80, "x32" with the x32 bit; "i386-nice": nice(10) by int $0x80), prints the
 * first answer, then execs CMD. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
static long call(const char *abi) {
	long r;
	if (!strcmp(abi, "i386-nice")) { /* nice(10): the older call, i386's number 34 */
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(34L), "b"(10L) : "memory");
	} else if (!strcmp(abi, "i386")) {
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(97L), "b"(0L), "c"(0L), "d"(10L) : "memory");
	} else {
		long nr = 141L | (!strcmp(abi, "x32") ? 0x40000000L : 0L);
		__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(0L), "S"(0L), "d"(10L) : "rcx", "r11", "memory");
	}
	return r;
}
int main(int argc, char **argv) {
	long first = call(argv[1]);
	for (long i = 1; i < atol(argv[2]); i++) call(argv[1]);
	printf("%ld\n", first);
	fflush(stdout);
	execvp(argv[3], argv + 3);
	return 127;
}
