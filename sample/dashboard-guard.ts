import { Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';

/** Credentials of the sample's dashboard (HTTP basic auth); set them in the environment for anything but a demo. */
export const DASHBOARD_USER = process.env.SPOOL_DASHBOARD_USER ?? 'admin';
export const DASHBOARD_PASSWORD = process.env.SPOOL_DASHBOARD_PASSWORD ?? 'spool';

interface HttpRequest {
  headers: Record<string, string | string[] | undefined>;
  user?: { username: string };
}

/** A simple guard for the sample's /queues: basic auth against one user; puts the user on the request (actions are logged with it). */
@Injectable()
export class DashboardGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const req = http.getRequest<HttpRequest>();
    const auth = req.headers.authorization;
    const [scheme, encoded] = (typeof auth === 'string' ? auth : '').split(' ');
    if (scheme === 'Basic' && encoded) {
      const text = Buffer.from(encoded, 'base64').toString();
      const at = text.indexOf(':');
      if (at > 0 && same(text.slice(0, at), DASHBOARD_USER) && same(text.slice(at + 1), DASHBOARD_PASSWORD)) {
        req.user = { username: text.slice(0, at) };
        return true;
      }
    }
    http.getResponse<{ header(name: string, value: string): unknown }>().header('WWW-Authenticate', 'Basic realm="Spool dashboard"');
    throw new UnauthorizedException('the dashboard needs a user name and password');
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
