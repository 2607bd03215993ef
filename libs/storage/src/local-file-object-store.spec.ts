import { LocalFileObjectStore, objectKeyProblem } from './local-file-object-store';
import { verifyDownload } from './local-file-signature';

const signingKey = Buffer.alloc(32, 3);
const config = { directory: '/var/lib/lx/objects', publicBaseUrl: 'http://127.0.0.1:8080/downloads', signingKey };

// Constructing and presigning touch no file: these run without a directory.
describe('LocalFileObjectStore.presignGet', () => {
  const now = new Date('2026-01-31T09:30:00.000Z');

  it('given a key, when a download URL is signed, then it points below publicBaseUrl with expires, file name, content type and signature', async () => {
    const store = new LocalFileObjectStore(config);
    const { url, expiresAt } = await store.presignGet('exports/client-1/export 1.json', {
      expiresInSeconds: 86_400,
      filename: 'locations-2026-01-31.json',
      contentType: 'application/json',
      now,
    });
    expect(expiresAt).toEqual(new Date('2026-02-01T09:30:00.000Z'));
    const [base, query] = url.split('?') as [string, string];
    expect(base).toBe('http://127.0.0.1:8080/downloads/exports/client-1/export%201.json');
    const params = new URLSearchParams(query);
    expect([...params.keys()]).toEqual(['expires', 'filename', 'contentType', 'signature']);
    expect(params.get('expires')).toBe(String(Date.parse('2026-02-01T09:30:00.000Z') / 1000));
    expect(params.get('filename')).toBe('locations-2026-01-31.json');
    expect(params.get('contentType')).toBe('application/json');
    expect(verifyDownload('exports/client-1/export 1.json', params, signingKey, now)).toMatchObject({ ok: true });
  });

  it('given a signing time with milliseconds, when signed, then expires is rounded down so the URL never outlives expiresAt', async () => {
    const store = new LocalFileObjectStore(config);
    const { url, expiresAt } = await store.presignGet('k', {
      expiresInSeconds: 60,
      filename: 'k',
      contentType: 'text/plain',
      now: new Date('2026-01-31T09:30:00.999Z'),
    });
    expect(expiresAt).toEqual(new Date('2026-01-31T09:31:00.999Z'));
    expect(new URL(url).searchParams.get('expires')).toBe(String(Date.parse('2026-01-31T09:31:00.000Z') / 1000));
  });

  it('given publicBaseUrl with a trailing slash, when signed, then the URL has one slash before the key', async () => {
    const store = new LocalFileObjectStore({ ...config, publicBaseUrl: 'https://lx.example.net/files/' });
    const { url } = await store.presignGet('a/b.csv', {
      expiresInSeconds: 1,
      filename: 'b.csv',
      contentType: 'text/csv',
      now,
    });
    expect(url.startsWith('https://lx.example.net/files/a/b.csv?expires=')).toBe(true);
    expect(store.downloadPath).toBe('/files');
  });

  it.each([
    ['a key with ..', 'exports/../secret', {}],
    ['an absolute key', '/etc/passwd', {}],
    ['an expiry of 0 seconds', 'k', { expiresInSeconds: 0 }],
    ['an expiry with a fraction', 'k', { expiresInSeconds: 1.5 }],
    ['a content type with a line break', 'k', { contentType: 'text/html\r\nSet-Cookie: a=b' }],
    ['an empty content type', 'k', { contentType: '' }],
  ])('given %s, when signed, then it rejects', async (_case, key, change) => {
    const store = new LocalFileObjectStore(config);
    await expect(
      store.presignGet(key, { expiresInSeconds: 60, filename: 'f', contentType: 'text/plain', now, ...change }),
    ).rejects.toThrow(Error);
  });
});

describe('LocalFileObjectStore', () => {
  it('given a signing key shorter than 32 bytes, when constructed, then it refuses', () => {
    expect(() => new LocalFileObjectStore({ ...config, signingKey: Buffer.alloc(31) })).toThrow(/at least 32 bytes/);
  });

  it('given publicBaseUrl with a query, when constructed, then it refuses', () => {
    expect(() => new LocalFileObjectStore({ ...config, publicBaseUrl: 'http://h/d?x=1' })).toThrow(/no query/);
  });

  it('given a key, when its file is asked for, then it is the nested path under the directory', () => {
    expect(new LocalFileObjectStore(config).fileOf('exports/client-1/export-1.json')).toBe(
      '/var/lib/lx/objects/exports/client-1/export-1.json',
    );
  });
});

describe('objectKeyProblem', () => {
  it.each(['exports/client-1/export-1.json', 'a', 'a/b/c', 'a b/ü.csv', 'a..b', 'a./b'])(
    'given the key %j, when checked, then it has no problem',
    (key) => {
      expect(objectKeyProblem(key)).toBeUndefined();
    },
  );

  it.each([
    ['', 'is empty'],
    ['/exports/a.json', 'is absolute'],
    ['exports\\a.json', 'contains a backslash'],
    ['exports/a\0.json', 'contains NUL'],
    ['..', 'has an empty segment or one starting with a dot'],
    ['exports/../a.json', 'has an empty segment or one starting with a dot'],
    ['exports/..', 'has an empty segment or one starting with a dot'],
    ['./a.json', 'has an empty segment or one starting with a dot'],
    ['exports//a.json', 'has an empty segment or one starting with a dot'],
    ['exports/', 'has an empty segment or one starting with a dot'],
    ['exports/.a.json.0b4c.tmp', 'has an empty segment or one starting with a dot'],
  ])('given the key %j, when checked, then it %s', (key, problem) => {
    expect(objectKeyProblem(key)).toBe(problem);
  });
});
