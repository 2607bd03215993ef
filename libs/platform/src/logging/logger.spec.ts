import { Logger } from '@nestjs/common';
import pino from 'pino';
import { createLogger, PinoNestLogger } from './logger';

describe('PinoNestLogger', () => {
  const lines: Record<string, unknown>[] = [];
  const destination = { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) };
  const logger = new Logger('Things');

  beforeAll(() => Logger.overrideLogger(new PinoNestLogger(pino({ base: undefined }, destination))));
  beforeEach(() => (lines.length = 0));

  it('given fields and a text, logs both with the context', () => {
    logger.log({ schema: 'auth', applied: ['A1'] }, 'Schema migrated');
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'Schema migrated', schema: 'auth', applied: ['A1'], context: 'Things' }),
    ]);
  });

  it('given fields with msg, logs msg as the text', () => {
    logger.warn({ msg: 'Route closed', route: 'X.y' });
    expect(lines).toEqual([expect.objectContaining({ msg: 'Route closed', route: 'X.y', context: 'Things' })]);
  });

  it('given a plain text and a stack, logs the stack as a field', () => {
    logger.error('boom', 'Error: boom\n    at somewhere (file.ts:1:1)');
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'boom', stack: 'Error: boom\n    at somewhere (file.ts:1:1)', level: 50 }),
    ]);
  });
});

describe('createLogger', () => {
  it('given secrets in logged fields, when logged, then they are redacted', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('it', 'info', {
      write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    logger.info(
      {
        clientSecret: 's1',
        webhookSecret: 's2',
        body: { client_secret: 's3', webhookSecret: 's4', password: 's5', name: 'kept' },
        req: { headers: { authorization: 'Bearer s6', cookie: 's7', accept: 'application/json' } },
      },
      'Registered',
    );
    expect(lines).toHaveLength(1);
    const text = JSON.stringify(lines[0]);
    for (const secret of ['s1', 's2', 's3', 's4', 's5', 's6', 's7']) expect(text).not.toContain(`"${secret}`);
    expect(text).not.toContain('Bearer');
    expect(lines[0]).toMatchObject({
      service: 'it',
      body: { name: 'kept' },
      req: { headers: { accept: 'application/json' } },
    });
  });
});
