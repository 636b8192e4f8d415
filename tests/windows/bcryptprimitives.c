/* A stand-in for Windows' bcryptprimitives.dll, for Wine only.
 *
 * Go's runtime (1.22 and later) draws its random numbers from ProcessPrng in
 * bcryptprimitives.dll, which every Windows since 10 has and Debian 12's
 * Wine (8.0) lacks: a Go program there stops at start with "fatal error:
 * bcryptprimitives.dll not found". make test-windows puts this DLL in the
 * Wine prefix's system32 (where Go looks for it); it answers ProcessPrng
 * with bcrypt's system random number generator, which Wine has. It is
 * never shipped. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
