export * from './result';
export * from './errors/domain-error';
export * from './location/location-validity';
export * from './location/serviceability-lifecycle';
export * from './location/modified-fields';
export * from './location/location-type';
