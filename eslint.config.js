const fs = require('node:fs');
const path = require('node:path');
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');

/**
 * What each kind of project may import (Nx tags). Services never import services, nor the testing library; only the
 * host of the embedded profile imports services.
 */
const PRODUCTION_DEPENDENCIES = {
  'type:contract': [],
  'type:domain': ['type:contract'],
  'type:platform': ['type:contract', 'type:domain'],
  'type:messaging': ['type:contract', 'type:domain', 'type:platform'],
  'type:storage': ['type:contract', 'type:platform'],
  // lx-sync, the RSPs' client: it knows the API's contracts and nothing of the server's inside.
  'type:client': ['type:contract'],
  'type:testing': ['type:contract', 'type:domain', 'type:platform'],
  'type:e2e': ['type:contract', 'type:testing', 'type:client'],
  'type:service': ['type:contract', 'type:domain', 'type:platform', 'type:messaging', 'type:storage'],
  // The embedded profile (deploy/embedded) hosts every service in one process: the one project that imports them.
  'type:host': ['type:contract', 'type:domain', 'type:platform', 'type:messaging', 'type:storage', 'type:service'],
};

/** The globals of a Node.js CommonJS module, for the plain .js scripts. */
const NODE_GLOBALS = Object.fromEntries(
  [
    'require',
    'module',
    'exports',
    '__dirname',
    '__filename',
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'fetch',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'structuredClone',
    'queueMicrotask',
  ].map((name) => [name, 'readonly']),
);

/** Tests and their helpers may also use the testing library; nothing else is relaxed. */
const TEST_DEPENDENCIES = Object.fromEntries(
  Object.entries(PRODUCTION_DEPENDENCIES).map(([tag, allowed]) => [
    tag,
    tag === 'type:testing' ? allowed : [...allowed, 'type:testing'],
  ]),
);

/** The services' entry points (their tsconfig path aliases), imported by the embedded host alone. */
const SERVICE_ENTRY_POINTS = Object.keys(require('./tsconfig.base.json').compilerOptions.paths).filter((alias) =>
  alias.startsWith('@lx/service/'),
);

const moduleBoundaries = (dependencies, allow = []) => [
  'error',
  {
    allow,
    depConstraints: Object.entries(dependencies).map(([sourceTag, onlyDependOnLibsWithTags]) => ({
      sourceTag,
      onlyDependOnLibsWithTags,
    })),
  },
];

const TEST_FILES = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts'];

const projectRoots = new Map();
/** The folder of the Nx project (nearest project.json) a file belongs to; null outside every project. */
function projectRootOf(file) {
  const dir = path.dirname(file);
  if (!projectRoots.has(dir)) {
    let root = null;
    for (let at = dir; at.startsWith(__dirname) && at !== __dirname; at = path.dirname(at)) {
      if (fs.existsSync(path.join(at, 'project.json'))) {
        root = at;
        break;
      }
    }
    projectRoots.set(dir, root);
  }
  return projectRoots.get(dir);
}

/** `../` may move within a project, never out of it: other projects are imported by their @lx/* alias. */
const noRelativeImportOutsideProject = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      outside:
        "Relative import '{{source}}' leaves the project {{project}}; import other projects by their @lx/* alias",
    },
  },
  create(context) {
    const root = projectRootOf(context.filename);
    if (root === null) return {};
    const check = (node) => {
      const source = node?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source);
      if (path.relative(root, target).startsWith('..')) {
        context.report({ node, messageId: 'outside', data: { source, project: path.relative(__dirname, root) } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node.arguments[0]);
      },
    };
  },
};

module.exports = tseslint.config(
  {
    ignores: ['**/node_modules', '**/dist', '**/.nx', '**/.infra', '**/.lx-data', '**/reports', '**/.stryker-tmp'],
  },
  {
    // The call sequence of the TypeScript client generated from the served document (.ci/openapi/clients.sh): it
    // imports the generated types, which exist only in that script's work folder, where tsc checks it (strict).
    ignores: ['.ci/openapi/clients/**'],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    // The hand-written CommonJS scripts (deploy/, docker/lx.js, the chart's smoke test, jest configs): the
    // recommended rules without type information, with Node's globals.
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: NODE_GLOBALS },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-undef': 'error' },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: __dirname } },
    plugins: { '@nx': nx, lx: { rules: { 'no-relative-import-outside-project': noRelativeImportOutsideProject } } },
    rules: {
      '@nx/enforce-module-boundaries': moduleBoundaries(PRODUCTION_DEPENDENCIES),
      'lx/no-relative-import-outside-project': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Production code: no test helpers, and configuration is read only by the config modules (and handed down).
    files: ['libs/*/src/**/*.ts', 'services/*/src/**/*.ts', 'deploy/embedded/src/**/*.ts'],
    ignores: ['libs/testing/**', ...TEST_FILES, '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@lx/testing', message: 'Test helpers are for tests only.' },
            { name: '@lx/domain/testing', message: 'Test builders are for tests only.' },
          ],
        },
      ],
    },
  },
  {
    // The entry points (main.ts, cli.ts) hand the environment to the config modules; nothing else reads it.
    files: ['libs/*/src/**/*.ts', 'services/*/src/**/*.ts', 'deploy/embedded/src/**/*.ts'],
    ignores: [
      'libs/testing/**',
      ...TEST_FILES,
      '**/config/**',
      'services/*/src/main.ts',
      'services/*/src/cli.ts',
      'deploy/embedded/src/main.ts',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration in the config module and inject it.' },
      ],
    },
  },
  {
    // Nx forbids importing application projects; the host of the embedded profile exists to do that, and only it.
    files: ['deploy/embedded/src/**/*.ts'],
    ignores: TEST_FILES,
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(PRODUCTION_DEPENDENCIES, SERVICE_ENTRY_POINTS) },
  },
  {
    // Tests and their helpers may also import the testing library; every other boundary holds.
    files: TEST_FILES,
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(TEST_DEPENDENCIES) },
  },
  {
    // The host's tests run services in one process as the host does (a trace across them): its entry points too.
    files: ['deploy/embedded/test/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(TEST_DEPENDENCIES, SERVICE_ENTRY_POINTS) },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'libs/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
