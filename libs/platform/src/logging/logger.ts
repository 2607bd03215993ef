import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as Pino, type LevelWithSilent } from 'pino';

/** One JSON-lines logger per process (stdout unless a destination is given); secrets that might pass through logged fields are redacted. */
export function createLogger(service: string, level: LevelWithSilent, destination?: DestinationStream): Pino {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'clientSecret',
          'webhookSecret',
          '*.clientSecret',
          '*.client_secret',
          '*.webhookSecret',
          '*.password',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * Routes Nest's Logger calls into pino. A message may be an object (merged into the line) or a
 * string; the trailing string parameter Nest appends is the context (the class name).
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal', message: unknown, params: unknown[]) {
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const extra = params.find((p): p is object => typeof p === 'object' && p !== null);
    const stack = params.find((p): p is string => typeof p === 'string' && p.includes('\n    at '));
    // logger.log({ fields }, 'text'): the text arrives as the first remaining string parameter.
    const text = params.find((p): p is string => typeof p === 'string' && p !== stack);
    if (typeof message === 'object' && message !== null) {
      const { msg, ...fields } = message as { msg?: unknown } & Record<string, unknown>;
      this.pino[level]({ context, ...fields, ...extra }, typeof msg === 'string' ? msg : text);
    } else {
      this.pino[level]({ context, ...extra, ...(stack ? { stack } : {}) }, String(message));
    }
  }
}
