import { Logger } from '@nestjs/common';
import pino from 'pino';
import { PinoNestLogger } from './logger';

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
