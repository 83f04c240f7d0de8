import { describe, expect, it } from 'vitest';
import { declaration, typeOf } from '../src/generate/schema-to-ts.js';

const member = {
  type: 'object',
  properties: { id: { type: 'string' }, muted: { type: 'boolean' } },
  required: ['id'],
};
const named = new Map([[JSON.stringify(member), 'Member']]);

describe('the contract printer', () => {
  it('prints a schema that is exactly a named one by its name, wherever it is met', () => {
    const list = {
      type: 'object',
      properties: {
        members: { type: 'array', items: member },
        host: { anyOf: [member, { type: 'null' }] },
      },
      required: ['members', 'host'],
    };
    expect(declaration('MemberList', list, named)).toBe(
      'export type MemberList = {\n  members: Member[];\n  host: Member | null;\n};\n',
    );
  });

  it('spells out the named schema itself, and a schema that differs in anything', () => {
    expect(declaration('Member', member, named)).toBe(
      'export type Member = {\n  id: string;\n  muted?: boolean;\n};\n',
    );
    const described = { ...member, description: 'Another member' };
    expect(typeOf(described, '', named)).toBe('{\n  id: string;\n  muted?: boolean;\n}');
  });

  it("prints a reference to one of the document's components by the component's name", () => {
    const body = {
      type: 'object',
      properties: { code: { $ref: '#/components/schemas/ErrorCode' } },
      required: ['code'],
    };
    expect(typeOf(body)).toBe('{\n  code: ErrorCode;\n}');
    expect(() => typeOf({ $ref: 'https://example.com/schema.json' })).toThrow(
      'unsupported $ref https://example.com/schema.json',
    );
  });
});
