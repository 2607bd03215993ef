import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError, Option } from 'commander';
import pino from 'pino';
import {
  REGISTRABLE_CLIENT_KINDS,
  errorBody,
  PAGINATION,
  registerClientRequestSchema,
  updateClientRequestSchema,
  uuidSchema,
  validate,
  type ValidationIssue,
} from '@lx/contracts';
import { DomainError } from '@lx/domain';
import { ConfigError, PinoNestLogger } from '@lx/platform';
import { DisableClientHandler } from '../clients/commands/disable-client/disable-client.handler';
import { RegisterClientHandler } from '../clients/commands/register-client/register-client.handler';
import { RotateClientSecretHandler } from '../clients/commands/rotate-client-secret/rotate-client-secret.handler';
import { UpdateClientHandler } from '../clients/commands/update-client/update-client.handler';
import { GetClientHandler } from '../clients/queries/get-client/get-client.handler';
import { ListClientsHandler } from '../clients/queries/list-clients/list-clients.handler';
import { loadAuthConfig } from '../config/auth.config';
import { RevokeSigningKeyHandler } from '../keys/commands/revoke-signing-key/revoke-signing-key.handler';
import { RotateSigningKeyHandler } from '../keys/commands/rotate-signing-key/rotate-signing-key.handler';
import { ListSigningKeysHandler } from '../keys/queries/list-signing-keys/list-signing-keys.handler';
import { CliModule } from './cli.module';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Exit codes: 0 done, 1 refused by the service's rules or failed, 2 bad usage or input. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

class InputError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => issue.message).join('; '));
  }
}

function checked<T>(schema: Parameters<typeof validate<T>>[0], value: unknown): T {
  const result = validate(schema, value);
  if (!result.ok) throw new InputError(result.issues);
  return result.value;
}

function clientId(value: string): string {
  if (!uuidSchema.safeParse(value).success) {
    throw new InputError([{ field: 'clientId', rule: 'uuid', message: 'clientId must be a UUID' }]);
  }
  return value;
}

/** `a,b` or `a b` → ['a', 'b']. */
const scopeList = (value: string) => value.split(/[\s,]+/).filter(Boolean);

const integer = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value))
    throw new InputError([{ field: name, rule: 'integer', message: `${name} must be an integer` }]);
  return Number(value);
};

/**
 * The SRE's client and key administration, the same use cases as the admin HTTP API run in a Nest application
 * context against the service's database (no HTTP, no token). Prints JSON on stdout; secrets appear only in the
 * output of `clients create` and `clients rotate-secret`. Logs go to stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let app: INestApplicationContext | undefined;
  const withApp = async <T>(work: (context: INestApplicationContext) => Promise<T>): Promise<void> => {
    const config = loadAuthConfig(io.env);
    const level = io.env.LOG_LEVEL === undefined ? 'warn' : config.http.logLevel;
    const logger = pino({ level, base: { service: 'auth-cli' } }, pino.destination(2));
    app = await NestFactory.createApplicationContext(CliModule.register(config), {
      logger: new PinoNestLogger(logger),
      abortOnError: false,
    });
    io.stdout(`${JSON.stringify(await work(app), null, 2)}\n`);
  };

  const program = new Command('auth-cli')
    .description('Location Exchange auth: API clients and signing keys')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  const clients = program.command('clients').description('API clients');
  clients
    .command('create')
    .description('register a client; prints its clientSecret (and an RSP webhookSecret) this once')
    .requiredOption('--name <name>', 'display name')
    .addOption(new Option('--kind <kind>', 'who the client is').choices(REGISTRABLE_CLIENT_KINDS).makeOptionMandatory())
    .option('--scopes <scopes>', 'comma- or space-separated scopes (default: every scope the kind may hold)', scopeList)
    .option('--webhook-url <url>', 'RSP webhook base URL')
    .action((options: { name: string; kind: string; scopes?: string[]; webhookUrl?: string }) =>
      withApp((context) => context.get(RegisterClientHandler).execute(checked(registerClientRequestSchema, options))),
    );
  clients
    .command('list')
    .description('list clients, oldest first')
    .option('--limit <n>', `page size, 1 to ${PAGINATION.maxLimit}`, integer('limit'), PAGINATION.defaultLimit)
    .option('--offset <n>', 'offset', integer('offset'), PAGINATION.defaultOffset)
    .action((options: { limit: number; offset: number }) =>
      withApp((context) => context.get(ListClientsHandler).execute(options)),
    );
  clients
    .command('get <clientId>')
    .description('show one client')
    .action((id: string) => withApp((context) => context.get(GetClientHandler).execute({ clientId: clientId(id) })));
  clients
    .command('update <clientId>')
    .description("change a client's name, scopes or webhook URL")
    .option('--name <name>', 'display name')
    .option('--scopes <scopes>', 'comma- or space-separated scopes', scopeList)
    .option('--webhook-url <url>', 'RSP webhook base URL')
    .option('--remove-webhook-url', 'remove the webhook URL')
    .action(
      (id: string, options: { name?: string; scopes?: string[]; webhookUrl?: string; removeWebhookUrl?: boolean }) => {
        const { removeWebhookUrl, ...changes } = options;
        const body = removeWebhookUrl ? { ...changes, webhookUrl: null } : changes;
        return withApp((context) =>
          context
            .get(UpdateClientHandler)
            .execute({ clientId: clientId(id), ...checked(updateClientRequestSchema, body) }),
        );
      },
    );
  clients
    .command('rotate-secret <clientId>')
    .description('issue a new client secret (and RSP webhook secret); prints them this once')
    .action((id: string) =>
      withApp((context) => context.get(RotateClientSecretHandler).execute({ clientId: clientId(id) })),
    );
  clients
    .command('disable <clientId>')
    .description('disable a client: no new tokens, no more webhooks')
    .action((id: string) =>
      withApp((context) => context.get(DisableClientHandler).execute({ clientId: clientId(id) })),
    );

  const keys = program.command('keys').description('token signing keys');
  keys
    .command('list')
    .description('list signing keys with their status')
    .action(() => withApp((context) => context.get(ListSigningKeysHandler).execute()));
  keys
    .command('rotate')
    .description('make a new signing key current; the old one verifies until its tokens expire')
    .action(() => withApp((context) => context.get(RotateSigningKeyHandler).execute()));
  keys
    .command('revoke <kid>')
    .description('revoke a leaked key: its tokens are refused everywhere within seconds (a current key is rotated out)')
    .action((kid: string) => withApp((context) => context.get(RevokeSigningKeyHandler).execute({ kid })));

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return report(error, io);
  } finally {
    await app?.close();
  }
}

function report(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof ConfigError) {
    io.stderr(`${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof InputError) {
    io.stderr(`${JSON.stringify(errorBody('VALIDATION_ERROR', error.message, { issues: error.issues }))}\n`);
    return EXIT.usage;
  }
  if (error instanceof DomainError) {
    io.stderr(`${JSON.stringify(errorBody(error.code, error.message, error.details))}\n`);
    return EXIT.failed;
  }
  io.stderr(`${error instanceof Error ? (error.stack ?? error.message) : 'unexpected failure'}\n`);
  return EXIT.failed;
}
