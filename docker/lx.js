#!/usr/bin/env node
'use strict';
/**
 * lx: the entrypoint of the Location Exchange image (ENTRYPOINT ["node", "/app/docker/lx.js"]); also runs in the repo
 * after `npx nx run-many -t build`. Picks a service's built entry point and loads it in THIS process with require(),
 * so that `node` stays PID 1 and receives the signals itself: no shell, no process manager, no child process.
 *
 *   lx <service> [serve]         the HTTP service (dist …/src/main.js)
 *   lx <service> migrate         apply the service schema's pending migrations, print {"schema","applied"}, exit;
 *                                with DATABASE_ADMIN_URL, first make DATABASE_URL's user the owner of the schema
 *   lx <service> cli [args…]     the service's own command line (dist …/src/cli.js), for the services that have one
 *   lx edge-errors               the Ingress controller's error backend (built with auth: dist …/auth/src/edge-errors.js)
 *
 * Configuration comes from environment variables only, as everywhere else in the project.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const SERVICES = [
  'auth',
  'location-command',
  'location-query',
  'statistics-projection',
  'export-worker',
  'webhook-dispatcher',
];
const COMMANDS = { serve: 'main.js', migrate: 'migrate.js', cli: 'cli.js' };
/** Commands that are not a service's: the program, and the service whose build holds its entry point. */
const PROGRAMS = { 'edge-errors': { service: 'auth', file: 'edge-errors.js' } };
/** The build output, relative to this file: <repo or /app>/dist/services/<svc>/services/<svc>/src/. */
const DIST = path.resolve(__dirname, '..', 'dist', 'services');

const USAGE = `Usage: lx <service> [serve | migrate | cli [args...]]
       lx edge-errors

  serve (default)  run the service's HTTP application
  migrate          apply the pending migrations of the service's schema and exit; given DATABASE_ADMIN_URL
                   (an administrator's login), first make DATABASE_URL's user the owner of the schema
  cli [args...]    run the service's command line (auth, location-query, statistics-projection);
                   "cli --help" lists its commands

  edge-errors      the Ingress controller's error backend: the API's JSON 404 for every request it is sent;
                   configured by HTTP_HOST and HTTP_PORT only

Services: ${SERVICES.join(', ')}
Configuration is read from environment variables (DATABASE_URL, KAFKA_BROKERS, ...); a missing or invalid
setting is listed on stderr and the process exits 1.

Examples:
  lx auth                          (in the image: docker run IMAGE auth)
  lx location-query migrate
  lx statistics-projection cli replay --timeout-minutes 60
  lx auth cli --help
`;

function usageError(message) {
  process.stderr.write(`lx: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function entryFile(service, command) {
  return path.join(DIST, service, 'services', service, 'src', COMMANDS[command]);
}

/**
 * Node as PID 1 (in a container): the kernel applies no default action to a signal PID 1 has no handler for, so a
 * SIGTERM nobody listens to would be ignored until the kubelet's SIGKILL 30 s later. A running service handles SIGTERM
 * itself (graceful close, then exit); before that (start-up: connecting, migrating at boot), in `migrate` and in the
 * cli nothing listens, and a handler that removes itself and re-raises the signal (as Nest's shutdown hooks do) would
 * not end PID 1 either. This handler does what the default action would: a signal that no other handler takes care of
 * ends the process with 128 + its number; while another handler is registered, it leaves the signal to it.
 */
function terminateOnUnhandledSignalsAsPid1() {
  if (process.pid !== 1) return;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    const handler = () => {
      if (process.listenerCount(signal) > 1) return; // the application shuts down gracefully
      process.exit(128 + os.constants.signals[signal]);
    };
    process.on(signal, handler);
  }
}

function main(argv) {
  const [service, command = 'serve', ...args] = argv;
  if (service === undefined || service === '--help' || service === '-h' || service === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (Object.hasOwn(PROGRAMS, service)) {
    if (argv.length > 1) usageError(`'${service}' takes no arguments (got: ${argv.slice(1).join(' ')})`);
    const program = PROGRAMS[service];
    const file = path.join(DIST, program.service, 'services', program.service, 'src', program.file);
    if (!fs.existsSync(file)) notBuilt(service, file);
    return start(file, []);
  }
  if (!SERVICES.includes(service)) usageError(`unknown service '${service}'`);
  if (command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return;
  }
  if (!Object.hasOwn(COMMANDS, command)) usageError(`unknown command '${command}' for ${service}`);
  if (command !== 'cli' && args.length > 0) usageError(`'${command}' takes no arguments (got: ${args.join(' ')})`);

  const file = entryFile(service, command);
  if (!fs.existsSync(file)) {
    if (!fs.existsSync(entryFile(service, 'serve'))) notBuilt(service, file);
    const withCli = SERVICES.filter((name) => fs.existsSync(entryFile(name, 'cli')));
    usageError(`${service} has no '${command}' (services with a cli: ${withCli.join(', ') || 'none'})`);
  }

  start(file, args);
}

function notBuilt(name, file) {
  process.stderr.write(`lx: ${name} is not built (no ${file}); run: npx nx run-many -t build --parallel=2\n`);
  process.exit(1);
}

/** Loads an entry point in this process. */
function start(file, args) {
  // The entry point sees itself as the script, followed by its own arguments only (the cli parses process.argv).
  process.argv = [process.argv[0], file, ...args];
  terminateOnUnhandledSignalsAsPid1();
  require(file);
}

main(process.argv.slice(2));
