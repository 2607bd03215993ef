#!/usr/bin/env node
// The `location` lines of the local nginx ingress, rendered from the chart's route table
// (helm/location-exchange/files/routes.json, which the chart's Ingresses and the embedded host route too), so the
// three routers cannot drift apart. deploy/local/nginx.sh puts them into ingress.conf.template.
//
//   node deploy/local/nginx/routes.js    prints them, indented for the template's server block
//
// A route is `location = PATH` (pathType Exact) or `location PATH` (Prefix), proxied to the upstream named after its
// service. Then every other path answers a JSON 404 (`location /`), and so does the bare form of each prefix that ends
// in a slash (`location = /oauth`): nginx would otherwise answer it with an HTML 301 to the slash form.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROUTES_FILE = join(__dirname, '..', '..', '..', 'helm', 'location-exchange', 'files', 'routes.json');

/** The nginx upstream of a service: its name with underscores (as the template's `upstream` blocks name them). */
const upstreamOf = (service) => service.replace(/-/g, '_');

function nginxLocations(routes) {
  const proxied = routes.map(
    (route) =>
      `location ${route.pathType === 'Exact' ? '= ' : ''}${route.path} { proxy_pass http://${upstreamOf(route.service)}; }`,
  );
  const bare = routes
    .filter((route) => route.pathType === 'Prefix' && route.path.length > 1 && route.path.endsWith('/'))
    .map((route) => `location = ${route.path.slice(0, -1)} { return 404; }`);
  return [...proxied, 'location / { return 404; }', ...bare];
}

function readRoutes() {
  return JSON.parse(readFileSync(ROUTES_FILE, 'utf8')).routes;
}

module.exports = { ROUTES_FILE, nginxLocations, readRoutes, upstreamOf };

if (require.main === module) {
  process.stdout.write(
    `${nginxLocations(readRoutes())
      .map((line) => `    ${line}`)
      .join('\n')}\n`,
  );
}
