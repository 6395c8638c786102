import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CSRF_COOKIE = 'spool_dashboard_csrf';
export const CSRF_HEADER = 'x-spool-csrf';

/**
 * Signed double-submit token: the browser keeps a random nonce in an
 * HttpOnly, SameSite=Strict cookie; pages carry HMAC(secret, nonce), and an
 * action must send it back in a header. Another site can neither read the
 * page's token nor forge one for the victim's cookie.
 */
export class CsrfTokens {
  private readonly secret: Buffer;

  constructor(secret?: string) {
    this.secret = secret ? Buffer.from(secret) : randomBytes(32);
  }

  /** The token for a cookie nonce. */
  token(nonce: string): string {
    return createHmac('sha256', this.secret).update(nonce).digest('base64url');
  }

  newNonce(): string {
    return randomBytes(18).toString('base64url');
  }

  /** True when `token` is the one signed for the request's cookie nonce. */
  verify(cookieHeader: string | undefined, token: string | undefined): boolean {
    const nonce = readCookie(cookieHeader, CSRF_COOKIE);
    if (!nonce || !token) return false;
    const want = Buffer.from(this.token(nonce));
    const got = Buffer.from(token);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function csrfCookie(nonce: string, path: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${nonce}; Path=${path}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
