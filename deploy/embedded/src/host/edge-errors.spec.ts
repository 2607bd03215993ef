import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_SECURITY_HEADERS, EDGE_ERRORS, EDGE_RETRY_AFTER_SECONDS } from '@lx/contracts';

const NGINX_DIR = join(__dirname, '..', '..', '..', '..', 'helm', 'location-exchange', 'files', 'nginx');

/** The entries of the nginx `map $status $<variable>` block in `conf`, by key. */
function mapOf(conf: string, variable: string): Map<string, string> {
  const block = new RegExp(`map \\$status \\$${variable} \\{\\n([\\s\\S]*?)\\n\\}`).exec(conf);
  if (block === null) throw new Error(`no map of $${variable}`);
  return new Map(
    block[1]!.split('\n').map((line) => {
      const entry = /^\s*(\S+)\s+(.*);$/.exec(line);
      if (entry === null) throw new Error(`not a map entry: ${line}`);
      return [entry[1]!, entry[2]!];
    }),
  );
}

/**
 * The ingress's own errors are one table (EDGE_ERRORS) answered in three places: the nginx files the chart ships (and
 * the local ingress includes), the edge-errors backend and this host. The nginx maps must give each status the body
 * of the table, and their default (any other status) that of 500.
 */
describe("the nginx files of the ingress's own errors", () => {
  const http = readFileSync(join(NGINX_DIR, 'edge-errors.http.conf'), 'utf8');
  const server = readFileSync(join(NGINX_DIR, 'edge-errors.server.conf'), 'utf8');

  it('answer every status with the body of EDGE_ERRORS, and any other with that of 500', () => {
    const bodies = mapOf(http, 'lx_edge_error');
    const expected = new Map<string, string>(
      Object.entries(EDGE_ERRORS)
        .filter(([status]) => status !== '500')
        .map(([status, error]) => [status, `'${JSON.stringify({ error })}\\n'`]),
    );
    expected.set('default', `'${JSON.stringify({ error: EDGE_ERRORS[500] })}\\n'`);
    expect(bodies).toEqual(expected);
  });

  it('give the 503 its Retry-After and nothing else one', () => {
    expect(mapOf(http, 'lx_edge_retry_after')).toEqual(
      new Map([
        ['503', String(EDGE_RETRY_AFTER_SECONDS)],
        ['default', '""'],
      ]),
    );
  });

  it('send the statuses of the table through the error page, and a service not answering (502, 503, 504) as 503', () => {
    const pages = [...server.matchAll(/^error_page ([\d ]+?) (=\d+ )?\/\.lx-edge\/error;$/gm)];
    const kept = pages.find((page) => page[2] === undefined)![1]!.split(' ');
    const turned = pages.find((page) => page[2] === '=503 ')![1]!.split(' ');
    // 494 is nginx's own code for a header too large; nginx answers it 400.
    expect(kept).toEqual([...Object.keys(EDGE_ERRORS).filter((status) => status !== '503'), '494'].sort());
    expect(turned).toEqual(['502', '503', '504']);
    // Reached only through error_page: from outside, $status would be 200 and the body that of 500.
    expect(server).toMatch(/^location = \/\.lx-edge\/error \{\n  internal;\n/m);
  });

  it("add the API's security headers, the request id and the Retry-After to the error page", () => {
    const added = new Map(
      [...server.matchAll(/^  add_header (\S+) (.+) always;$/gm)].map((line) => [
        line[1]!.toLowerCase(),
        line[2]!.replace(/^"(.*)"$/, '$1'),
      ]),
    );
    expect(added).toEqual(
      new Map([
        ['x-request-id', '$req_id'],
        ...Object.entries(API_SECURITY_HEADERS),
        ['retry-after', '$lx_edge_retry_after'],
      ]),
    );
  });
});
