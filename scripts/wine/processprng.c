/*
 * bcryptprimitives.dll with the one function Go's Windows runtime needs
 * and Wine 8 lacks: ProcessPrng, the process-wide random generator of
 * Windows 10 and later, here answered by BCryptGenRandom with the
 * system's preferred generator. Only the Wine test of cmd/snowluma-mcp
 * builds it (x86_64-w64-mingw32-gcc, see wine_test.go) and loads it next
 * to the test's binary; it is never committed built, nor shipped.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
