import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isForbiddenAddress } from './forbidden-address.js';

/** Host name → its addresses. */
export type Resolver = (host: string) => Promise<readonly string[]>;

/** The system resolver (getaddrinfo, every address, in its order). */
export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** The code of the error a vetted lookup refuses a host with. */
export const FORBIDDEN_ADDRESS_CODE = 'ERR_FORBIDDEN_ADDRESS';

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A socket's DNS lookup (the `lookup` option of net, http, undici and ws): resolves once,
 * refuses the host when any address is forbidden (unless allowed), and hands the socket the
 * address it vetted, so no second lookup can be steered elsewhere (DNS rebinding). TLS still uses
 * the URL's host name for SNI and certificate checks, and the Host header is unchanged.
 */
export function vettedLookup(resolve: Resolver, allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const forbidden = allowPrivate ? undefined : addresses.find(isForbiddenAddress);
        const address = addresses[0];
        if (forbidden !== undefined || address === undefined) {
          const error: NodeJS.ErrnoException = new Error(
            forbidden === undefined
              ? `${hostname} does not resolve`
              : `${hostname} resolves to a forbidden address (${forbidden})`,
          );
          error.code = forbidden === undefined ? 'ENOTFOUND' : FORBIDDEN_ADDRESS_CODE;
          callback(error, '');
          return;
        }
        const family = isIP(address);
        if (options.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** Why a URL host that is a forbidden IP literal is refused: it never goes through the lookup. */
export function literalRefusal(hostname: string): string | undefined {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) !== 0 && isForbiddenAddress(host)
    ? `${host} is a forbidden address`
    : undefined;
}
