import { ConfigError } from '@lx/platform';
import { loadLocationQueryConfig } from './location-query.config';

const required = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:55432/lx', KAFKA_BROKERS: '127.0.0.1:19092' };

describe('location-query configuration: the snapshot', () => {
  it('given nothing, when loaded, then a caught-up snapshot waits at most 60 s for the projection of its group', () => {
    expect(loadLocationQueryConfig(required).snapshot).toEqual({
      fetchRows: 1_000,
      catchUpTimeoutMs: 60_000,
      projectionGroupId: 'location-query',
    });
  });

  it('given the variables, when loaded, then each is taken', () => {
    const env = {
      ...required,
      SNAPSHOT_CATCH_UP_TIMEOUT_MS: '500',
      PROJECTION_GROUP_ID: 'lq-2',
      SNAPSHOT_FETCH_ROWS: '5',
    };
    expect(loadLocationQueryConfig(env).snapshot).toEqual({
      fetchRows: 5,
      catchUpTimeoutMs: 500,
      projectionGroupId: 'lq-2',
    });
  });

  it.each(['0', '600001', 'a minute'])(
    'given SNAPSHOT_CATCH_UP_TIMEOUT_MS=%s, when loaded, then it is refused',
    (value) => {
      expect(() => loadLocationQueryConfig({ ...required, SNAPSHOT_CATCH_UP_TIMEOUT_MS: value })).toThrow(ConfigError);
    },
  );
});

describe('location-query configuration: the change feed', () => {
  it('given nothing, when loaded, then changes are kept 7 days under the read model group with -changes after it', () => {
    expect(loadLocationQueryConfig(required).changeFeed).toEqual({
      groupId: 'location-query-changes',
      retentionDays: 7,
    });
  });

  it('given the variables, when loaded, then each is taken', () => {
    const env = { ...required, PROJECTION_GROUP_ID: 'lq-2', CHANGE_FEED_RETENTION_DAYS: '30' };
    expect(loadLocationQueryConfig(env).changeFeed).toEqual({ groupId: 'lq-2-changes', retentionDays: 30 });
  });

  it.each(['6', '0', '3651', '7.5', 'a week'])(
    'given CHANGE_FEED_RETENTION_DAYS=%s, when loaded, then it is refused, naming the variable',
    (value) => {
      expect(() => loadLocationQueryConfig({ ...required, CHANGE_FEED_RETENTION_DAYS: value })).toThrow(
        /CHANGE_FEED_RETENTION_DAYS/,
      );
    },
  );
});
