// Word lists and enum values of the simulated stores: what realistic e-commerce tests are made of.
// The spec leaves these values open; the simulator's choices live here, in one place.
import type { Rule, TestStatus } from '#shared/api/index';

export const DEVICES = ['all', 'mobile', 'desktop'] as const;
export const VISITOR_OPTIONS = ['all', 'new', 'returning'] as const;
export const PRIORITIES = ['low', 'medium', 'high'] as const;
export const SURFACE_AREAS = [
  'homepage',
  'product-page',
  'collection-page',
  'cart',
  'checkout',
  'navigation',
  'site-wide',
] as const;
/** `stage`: where the test is in the team's workflow (the spec names only `idea`). */
export const STAGES = ['idea', 'planned', 'running', 'analysis', 'done'] as const;
/** Campaign statuses besides `active` (the spec names only `active`). */
export const CAMPAIGN_STATUSES = ['active', 'draft', 'paused', 'ended'] as const;

/** How often each status occurs in a generated store. */
export const STATUS_WEIGHTS: readonly (readonly [TestStatus, number])[] = [
  ['completed', 30],
  ['active', 16],
  ['draft', 20],
  ['paused', 6],
  ['suspended', 3],
  ['scheduled', 6],
  ['cancelled', 8],
  ['incompatible', 2],
];

export const FEATURES = [
  'Free shipping bar',
  'Hero banner copy',
  'Sticky add-to-cart',
  'Trust badges',
  'Product video',
  'Urgency timer',
  'Reviews carousel',
  'Size guide link',
  'Bundle offer',
  'Exit-intent popup',
  'One-page checkout',
  'Express payment buttons',
  'Recently viewed strip',
  'Larger product images',
  'Price anchoring',
  'Shipping cost estimator',
  'Back-in-stock alerts',
  'Newsletter discount',
  'Cross-sell drawer',
  'Mega menu',
  'Search autocomplete',
  'Low-stock badge',
  'Gift wrap option',
  'Pay-later messaging',
  'Minimal cart page',
] as const;

export const PLACEMENTS = [
  'on PDP',
  'on homepage',
  'on collection pages',
  'in cart',
  'at checkout',
  'on mobile',
  'site-wide',
  '',
] as const;

export const TITLE_SUFFIXES = ['', '', '', '', ' v2', ' (round 2)', ' v3'] as const;

export const REASONS = [
  'visitors hesitate when costs are unclear',
  'shoppers look for proof before buying',
  'the current page buries the main call to action',
  'mobile visitors scroll past the key information',
  'competitors already show this and customers expect it',
  'session recordings show visitors hunting for it',
  'support tickets keep asking about it',
] as const;

export const TAG_NAMES = [
  'Q1 roadmap',
  'Q2 roadmap',
  'Mobile',
  'Checkout',
  'Pricing',
  'Merchandising',
  'Copy',
  'UX',
  'Quick win',
  'Holiday',
  'Retention',
  'Brand',
  'Agency',
  'Needs review',
] as const;

export const CUSTOM_AUDIENCES: readonly { name: string; rules: Rule[] }[] = [
  {
    name: 'Cart value over 100',
    rules: [{ dimension: 'cart_value', operator: 'greater_than', values: ['100'], selector: null }],
  },
  {
    name: 'Visitors from the newsletter',
    rules: [
      { dimension: 'utm_source', operator: 'equals', values: ['newsletter'], selector: null },
    ],
  },
  {
    name: 'High-intent browsers',
    rules: [{ dimension: 'page_views', operator: 'greater_than', values: ['5'], selector: null }],
  },
  {
    name: 'Nordic visitors',
    rules: [
      { dimension: 'country', operator: 'in', values: ['SE', 'NO', 'DK', 'FI'], selector: null },
    ],
  },
  {
    name: 'Sale collection viewers',
    rules: [
      { dimension: 'url', operator: 'contains', values: ['/collections/sale'], selector: null },
    ],
  },
  {
    name: 'Clicked the size guide',
    rules: [
      {
        dimension: 'element_clicked',
        operator: 'equals',
        values: ['true'],
        selector: { type: 'css', value: '.size-guide' },
      },
    ],
  },
  {
    name: 'Returning mobile buyers',
    rules: [
      { dimension: 'device', operator: 'equals', values: ['mobile'], selector: null },
      { dimension: 'orders_count', operator: 'greater_than', values: ['0'], selector: null },
    ],
  },
];

/** The built-in audiences every store has (channel, referer, country). */
export const DEFAULT_AUDIENCES = [
  { name: 'Paid search', dimension: 'channel', operator: 'equals', value: 'paid_search' },
  { name: 'Paid social', dimension: 'channel', operator: 'equals', value: 'paid_social' },
  { name: 'Email', dimension: 'channel', operator: 'equals', value: 'email' },
  { name: 'Organic search', dimension: 'channel', operator: 'equals', value: 'organic_search' },
  { name: 'Referred by Google', dimension: 'referer', operator: 'contains', value: 'google.' },
  {
    name: 'Referred by Instagram',
    dimension: 'referer',
    operator: 'contains',
    value: 'instagram.com',
  },
  { name: 'Country is United States', dimension: 'country', operator: 'equals', value: 'US' },
  { name: 'Country is United Kingdom', dimension: 'country', operator: 'equals', value: 'GB' },
  { name: 'Country is Germany', dimension: 'country', operator: 'equals', value: 'DE' },
  { name: 'Country is Sweden', dimension: 'country', operator: 'equals', value: 'SE' },
] as const;

export const CAMPAIGN_NAMES = [
  'Spring sale 2026',
  'Checkout overhaul',
  'Mobile first',
  'PDP refresh',
  'Black Friday prep',
  'Free shipping threshold',
  'Homepage revamp',
  'Loyalty launch',
] as const;

export const CAMPAIGN_OBJECTIVES = [
  'Lift mobile conversion',
  'Grow average order value',
  'Reduce checkout drop-off',
  'Validate the new brand voice',
  'Prepare the peak season',
] as const;

export const HANDLES = [
  'products/trail-runner-2',
  'products/merino-base-layer',
  'products/oak-dining-chair',
  'collections/sale',
  'collections/new-arrivals',
  'pages/shipping',
  'cart',
] as const;

export const VARIANT_TYPES = ['theme', 'template', 'redirect', 'price'] as const;

/** Splits a launched test runs with (control share in percent). */
export const TRAFFIC_SPLITS: readonly (readonly [number, number])[] = [
  [50, 80],
  [70, 8],
  [80, 6],
  [90, 4],
  [30, 2],
];

/** The stores of a simulator created without options, plus a read-only key for the first one. */
export const DEFAULT_STORES = [
  { name: 'Acme Outdoor' },
  { name: 'Nordic Home' },
  { name: 'Demo store' },
  { name: 'Acme Outdoor', readOnly: true },
] as const;
