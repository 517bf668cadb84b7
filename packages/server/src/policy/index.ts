export {
  type PolicyChange,
  type PolicyListener,
  PolicyService,
  type Resolution,
  type ResolveSubject,
} from './policy-service.js';
