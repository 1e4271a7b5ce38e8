/**
 * $BROWSER for tests that sign in: test/support/fake-browser.sh follows the authorization URL's
 * redirects to rsi's loopback callback with curl (test/support/fake-browser.mjs on Node where the
 * machine has no curl). One home for the command, which 22 files used to spell each for itself.
 */
import { fileURLToPath } from 'node:url';

export const FAKE_BROWSER = fileURLToPath(new URL('./fake-browser.sh', import.meta.url));
