import { withSchemaReferences } from './references';

const location = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' } },
  required: ['id'],
  additionalProperties: false,
};
const variant = (status: string) => ({
  type: 'object',
  properties: { status: { type: 'string', enum: [status] }, at: { type: 'string' } },
  required: ['status'],
});

describe('withSchemaReferences', () => {
  it('given a copy of a named schema inside another, then the copy becomes a reference and the named one stays whole', () => {
    const document = {
      paths: { '/x': { get: { responses: { 200: { content: { 'application/json': { schema: location } } } } } } },
      components: {
        schemas: {
          Location: location,
          LocationList: { type: 'object', properties: { locations: { type: 'array', items: location } } },
        },
      },
    };
    expect(withSchemaReferences(document)).toEqual({
      paths: {
        '/x': {
          get: {
            responses: {
              200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Location' } } } },
            },
          },
        },
      },
      components: {
        schemas: {
          Location: location,
          LocationList: {
            type: 'object',
            properties: { locations: { type: 'array', items: { $ref: '#/components/schemas/Location' } } },
          },
        },
      },
    });
  });

  it('given a copy with its own description, then the description stays beside the reference', () => {
    const document = {
      components: {
        schemas: {
          Location: location,
          Event: { type: 'object', properties: { data: { ...location, description: 'After the change' } } },
        },
      },
    };
    expect(withSchemaReferences(document).components.schemas.Event.properties.data).toEqual({
      $ref: '#/components/schemas/Location',
      description: 'After the change',
    });
  });

  it('given a copy that differs in a constraint, then it stays a copy', () => {
    const other = { ...location, required: [] };
    const document = {
      components: { schemas: { Location: location, Draft: { type: 'object', properties: { a: other } } } },
    };
    expect(withSchemaReferences(document).components.schemas.Draft.properties.a).toEqual(other);
  });

  it('given a union of named objects that one field tells apart, then it is a oneOf with a discriminator', () => {
    const document = {
      components: {
        schemas: {
          Done: variant('DONE'),
          Failed: variant('FAILED'),
          Status: { anyOf: [variant('DONE'), variant('FAILED')] },
        },
      },
    };
    expect(withSchemaReferences(document).components.schemas.Status).toEqual({
      oneOf: [{ $ref: '#/components/schemas/Done' }, { $ref: '#/components/schemas/Failed' }],
      discriminator: {
        propertyName: 'status',
        mapping: { DONE: '#/components/schemas/Done', FAILED: '#/components/schemas/Failed' },
      },
    });
  });

  it('given a union whose options share the deciding value, then it gets no discriminator', () => {
    const other = {
      ...variant('SAME'),
      properties: { status: { type: 'string', enum: ['SAME'] }, b: { type: 'integer' } },
    };
    const document = {
      components: { schemas: { A: variant('SAME'), B: other, U: { oneOf: [variant('SAME'), other] } } },
    };
    expect(withSchemaReferences(document).components.schemas.U).toEqual({
      oneOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }],
    });
  });

  it('given two named schemas of the same shape, then it throws: a copy could not tell which one it is', () => {
    const document = { components: { schemas: { A: variant('SAME'), B: { ...variant('SAME'), description: 'x' } } } };
    expect(() => withSchemaReferences(document)).toThrow('the named schemas A and B have the same shape');
  });

  it('given a reference inside a named schema, then it is compared by what it refers to', () => {
    const list = {
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/components/schemas/L' } } },
    };
    const document = {
      components: {
        schemas: {
          L: location,
          List: list,
          Page: {
            type: 'object',
            properties: { list: { type: 'object', properties: { items: { type: 'array', items: location } } } },
          },
        },
      },
    };
    expect(withSchemaReferences(document).components.schemas.Page.properties.list).toEqual({
      $ref: '#/components/schemas/List',
    });
  });
});
