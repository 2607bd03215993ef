import 'reflect-metadata';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { loadInfraEnv } from '../../../../libs/testing/src/infra-env';
import { loadLocationQueryConfig } from '../../src/config/location-query.config';
import { replayReadModel } from '../../src/replay/replay-read-model';

async function main() {
  loadInfraEnv();
  const schema = `prof_${Date.now().toString(36)}`;
  const config = loadLocationQueryConfig({ ...process.env, DATABASE_SCHEMA: schema, PROJECTION_GROUP_ID: `prof-${schema}`, LOG_LEVEL: 'warn' });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const started = Date.now();
  let last = 0n;
  const replay = replayReadModel(config, { onProgress: (p) => { last = p.applied; } }).catch((e) => console.error(String(e)));
  await new Promise((r) => setTimeout(r, Number(process.argv[2] ?? 40) * 1000));
  const { profile } = await session.post('Profiler.stop');
  writeFileSync('/tmp/lqprof/replay.cpuprofile', JSON.stringify(profile));
  console.log('applied', String(last), 'in', (Date.now() - started) / 1000, 's');
  process.exit(0);
  void replay;
}
void main();
