// What a host that runs this service in its own process needs (the embedded profile, deploy/embedded).
export { AppModule } from './app.module';
export { loadAuthConfig, type AuthConfig } from './config/auth.config';
