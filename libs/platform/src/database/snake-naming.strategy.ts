import { DefaultNamingStrategy, type NamingStrategyInterface, type Table } from 'typeorm';

const snake = (value: string) => value.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const tableOf = (table: Table | string) => (typeof table === 'string' ? table : table.name).split('.').pop() ?? '';

/** snake_case columns and readable constraint names (`<table>_pkey`, `<table>_<cols>_idx`) instead of hashes. */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override tableName(className: string, customName?: string): string {
    return customName ?? snake(className);
  }
  override columnName(propertyName: string, customName: string | undefined, prefixes: string[]): string {
    return snake([...prefixes, customName ?? propertyName].join('_'));
  }
  override primaryKeyName(table: Table | string): string {
    return `${tableOf(table)}_pkey`;
  }
  override uniqueConstraintName(table: Table | string, columns: string[]): string {
    return `${tableOf(table)}_${columns.join('_')}_key`;
  }
  override indexName(table: Table | string, columns: string[]): string {
    return `${tableOf(table)}_${columns.join('_')}_idx`;
  }
  override foreignKeyName(table: Table | string, columns: string[]): string {
    return `${tableOf(table)}_${columns.join('_')}_fkey`;
  }
}
