import { loadImportCliEnvironment } from './import-cli.config';

describe('lx-import environment', () => {
  it('given nothing, when loaded, then the local stack addresses are the defaults and no credentials are set', () => {
    expect(loadImportCliEnvironment({})).toEqual({
      commandUrl: 'http://127.0.0.1:3002',
      tokenUrl: 'http://127.0.0.1:3001/oauth/token',
    });
  });

  it('given every variable, when loaded, then each is taken', () => {
    expect(
      loadImportCliEnvironment({
        LX_COMMAND_URL: 'https://command.example.net',
        LX_TOKEN_URL: 'https://auth.example.net/oauth/token',
        LX_ACCESS_TOKEN: 'token',
        LX_CLIENT_ID: 'client',
        LX_CLIENT_SECRET: 'secret',
      }),
    ).toEqual({
      commandUrl: 'https://command.example.net',
      tokenUrl: 'https://auth.example.net/oauth/token',
      accessToken: 'token',
      clientId: 'client',
      clientSecret: 'secret',
    });
  });

  it('given empty values, when loaded, then they count as unset', () => {
    expect(loadImportCliEnvironment({ LX_COMMAND_URL: '', LX_ACCESS_TOKEN: '', LX_CLIENT_SECRET: '' })).toEqual({
      commandUrl: 'http://127.0.0.1:3002',
      tokenUrl: 'http://127.0.0.1:3001/oauth/token',
    });
  });
});
