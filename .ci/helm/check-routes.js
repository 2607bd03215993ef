#!/usr/bin/env node
// Checks the public base URL's route table (helm/location-exchange/files/routes.json): its entries are well formed
// and publish no internal path; the local nginx ingress's `location` lines rendered from it
// (deploy/local/nginx/routes.js) hold exactly its paths, with the same exact/prefix match and target service; and,
// given `helm template` output, the chart's Ingresses do too. Exits 1 naming every difference.
//
//   node .ci/helm/check-routes.js                  check routes.json and the nginx lines rendered from it
//   node .ci/helm/check-routes.js --rendered FILE  also compare the Ingresses of `helm template` output in FILE
//
// Plain CommonJS without dependencies: the chart's table is JSON, the nginx and rendered lines are matched by pattern.
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { nginxLocations, ROUTES_FILE } = require('../../deploy/local/nginx/routes.js');

const ROOT = join(__dirname, '..', '..');
const NGINX_SOURCE = 'deploy/local/nginx/routes.js';
const SERVICES = [
  'auth',
  'location-command',
  'location-query',
  'statistics-projection',
  'export-worker',
  'webhook-dispatcher',
];
const INGRESSES = ['public', 'operator'];
/** The error backend (edgeErrors): each rendered Ingress may route "/" (every path without a route) to it, and only that. */
const EDGE_ERRORS = 'edge-errors';
const CATCH_ALL = { path: '/', match: 'prefix', service: EDGE_ERRORS };

const problems = [];
const show = (file) => relative(ROOT, file);
const describe = (route) => `${route.match} ${route.path} -> ${route.service}`;

/** Path -> route, reporting duplicates. */
function byPath(routes, source) {
  const map = new Map();
  for (const route of routes) {
    if (map.has(route.path)) problems.push(`${source}: ${route.path} is routed twice`);
    map.set(route.path, route);
  }
  return map;
}

/** Every difference between two route lists, each named with both sources. */
function compare(expectedName, expected, actualName, actual) {
  const want = byPath(expected, expectedName);
  const have = byPath(actual, actualName);
  for (const [path, route] of want) {
    const other = have.get(path);
    if (other === undefined) {
      problems.push(`${path}: in ${expectedName} (${describe(route)}) but not in ${actualName}`);
    } else if (other.match !== route.match || other.service !== route.service) {
      problems.push(`${path}: ${expectedName} has ${describe(route)}, ${actualName} has ${describe(other)}`);
    }
  }
  for (const [path, route] of have) {
    if (!want.has(path)) problems.push(`${path}: in ${actualName} (${describe(route)}) but not in ${expectedName}`);
  }
}

function readRoutesFile() {
  const source = show(ROUTES_FILE);
  const table = JSON.parse(readFileSync(ROUTES_FILE, 'utf8'));
  const routes = [];
  for (const [index, entry] of table.routes.entries()) {
    const at = `${source}: routes[${index}]`;
    if (typeof entry.path !== 'string' || !entry.path.startsWith('/')) problems.push(`${at}: path must start with /`);
    if (!['Exact', 'Prefix'].includes(entry.pathType)) problems.push(`${at}: pathType must be Exact or Prefix`);
    if (!SERVICES.includes(entry.service)) problems.push(`${at}: unknown service ${entry.service}`);
    if (!INGRESSES.includes(entry.ingress)) problems.push(`${at}: ingress must be one of ${INGRESSES.join(', ')}`);
    routes.push({
      path: entry.path,
      match: entry.pathType === 'Exact' ? 'exact' : 'prefix',
      service: entry.service,
      ingress: entry.ingress,
    });
  }
  // A prefix route on a parent of an internal path would publish it (as /admin would publish /admin/keys).
  for (const hidden of table.neverRouted) {
    for (const route of routes) {
      const reaches =
        route.match === 'exact'
          ? route.path.startsWith(hidden)
          : hidden.startsWith(route.path) || route.path.startsWith(hidden);
      if (reaches) problems.push(`${source}: ${describe(route)} reaches ${hidden}, which must never be routed`);
    }
  }
  return { routes, neverRouted: table.neverRouted, entries: table.routes };
}

/** The routes of nginx `location [=] PATH { proxy_pass http://UPSTREAM; }` lines. */
function readNginxLocations(lines) {
  const source = `${NGINX_SOURCE} location lines`;
  const routes = [];
  for (const [index, line] of lines.entries()) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('location ')) continue;
    const at = `${NGINX_SOURCE} line ${index + 1}`;
    const proxied = /^location\s+(=\s*)?(\/\S*)\s*\{\s*proxy_pass\s+http:\/\/([a-z_]+)\s*;\s*\}$/.exec(trimmed);
    if (proxied !== null) {
      const service = proxied[3].replace(/_/g, '-');
      if (!SERVICES.includes(service)) problems.push(`${at}: upstream ${proxied[3]} is no service`);
      routes.push({ path: proxied[2], match: proxied[1] === undefined ? 'prefix' : 'exact', service });
    } else if (!/^location\s+(=\s*)?\/\S*\s*\{\s*return\s+404\s*;\s*\}$/.test(trimmed)) {
      // Neither a route nor a 404 (the error replies are the chart's nginx files, which the template includes; their
      // test is deploy/embedded/src/host/edge-errors.spec.ts): a form this check does not understand.
      problems.push(`${at}: cannot read this location line: ${trimmed}`);
    }
  }
  if (routes.length === 0) problems.push(`${source}: no proxied location found`);
  return routes;
}

/**
 * The Ingresses of `helm template` output: per Ingress (told apart by its component label, public-ingress or
 * operator-ingress) the path, pathType and backend service of each rule's paths, the service named by its suffix.
 */
function readRendered(file) {
  const ingresses = new Map();
  for (const document of readFileSync(file, 'utf8').split(/^---\s*$/m)) {
    if (!/^kind: Ingress$/m.test(document)) continue;
    const component = /^\s+app\.kubernetes\.io\/component: (\S+)-ingress$/m.exec(document)?.[1];
    if (!INGRESSES.includes(component)) {
      problems.push(`${file}: an Ingress that is neither the public nor the operator one`);
      continue;
    }
    const routes = new Map();
    let current = null;
    for (const line of document.split('\n')) {
      const path = /^\s+- path: (\S+)$/.exec(line);
      const pathType = /^\s+pathType: (\S+)$/.exec(line);
      const name = /^\s+name: (\S+)$/.exec(line);
      if (path !== null) current = { path: path[1] };
      else if (pathType !== null && current !== null) current.match = pathType[1] === 'Exact' ? 'exact' : 'prefix';
      else if (name !== null && current !== null && current.match !== undefined) {
        current.service = [...SERVICES, EDGE_ERRORS]
          .filter((service) => name[1].endsWith(`-${service}`))
          .sort((a, b) => b.length - a.length)[0];
        // Several hosts repeat the same paths; each path counts once per Ingress.
        routes.set(current.path, current);
        current = null;
      }
    }
    ingresses.set(component, [...routes.values()]);
  }
  return ingresses;
}

function main() {
  const args = process.argv.slice(2);
  const renderedIndex = args.indexOf('--rendered');
  const rendered = renderedIndex === -1 ? undefined : args[renderedIndex + 1];

  const { routes, neverRouted, entries } = readRoutesFile();
  const chartName = show(ROUTES_FILE);
  compare(chartName, routes, `the nginx lines of ${NGINX_SOURCE}`, readNginxLocations(nginxLocations(entries)));

  const summary = [`${routes.length} routes agree between ${chartName} and the nginx lines of ${NGINX_SOURCE}`];
  if (rendered !== undefined) {
    const ingresses = readRendered(rendered);
    if (ingresses.size === 0) problems.push(`${rendered}: no Ingress found`);
    for (const [kind, found] of ingresses) {
      const catchAll = found.find((route) => route.service === EDGE_ERRORS);
      if (catchAll !== undefined && (catchAll.path !== CATCH_ALL.path || catchAll.match !== CATCH_ALL.match)) {
        problems.push(`the rendered ${kind} Ingress routes ${describe(catchAll)}: the error backend takes "/" only`);
      }
      const expected = routes.filter((route) => route.ingress === kind);
      if (catchAll !== undefined) expected.push(CATCH_ALL);
      compare(`${chartName} (${kind})`, expected, `the rendered ${kind} Ingress`, found);
      for (const route of found) {
        if (neverRouted.some((hidden) => route.path.startsWith(hidden))) {
          problems.push(`the rendered ${kind} Ingress routes ${route.path}, which must never be routed`);
        }
      }
      summary.push(`rendered ${kind} Ingress: ${found.length} routes`);
    }
  }

  if (problems.length > 0) {
    console.error(`check-routes: ${problems.length} difference(s):\n  - ${problems.join('\n  - ')}`);
    process.exit(1);
  }
  console.log(`check-routes: ok (${summary.join('; ')})`);
}

main();
