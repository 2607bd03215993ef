export * from './builders';
export * from './thrown-by';
