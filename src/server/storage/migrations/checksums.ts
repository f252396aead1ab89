import type { Dialect } from '../sql/types.js';

/**
 * The checksum of every published migration, per dialect and version (DESIGN §14.1). A test compares
 * the code with this list, so editing a published migration fails CI; a new migration adds its line here.
 */
export const PUBLISHED_CHECKSUMS: Readonly<Record<Dialect, Readonly<Record<number, string>>>> = {
  sqlite: {
    1: 'a2fb632f1223300c6f2dd6c0f02d1790b45bcbd18903f319f0c26c7d6fb7ceeb', // core
    2: 'ae24885d7de98b0aa6a4faa1ba2e31c77f2864e79df04eb926412b42ca5ffb0f', // speakers-billing
    3: 'f13f65cda5838e99fb9a8cc613667c731fc19c68d36f02f02b5871fe0485a009', // audio-jobs
    4: '05577984f53a3a84b4f4deedb5da52ad62480d51dcf335d6ee176d30820178b3', // sessions-reservations
    5: '3afd8faa8d5a58d11091ddd5500eeacdd1bf93f45fb93772d0fd1eb0c6a0d3e5', // evaluations
    6: '5b2ffdd8d5184bc331c70ce5445060950108ff3f3f98f3196328f1837cc85cf9', // leases
    7: 'c769be18b1962be9e38ced24828f744102fdc40508b762d9661ee0981dbad80a', // schema-repair
    8: 'fe76a798c060b2124a9272e2cc5eb9780a6bb8b34baafe021a27d373ea3ce0b5', // user-disabled
    9: '0afc99786400e4716159cf050d46e3f6ce6aa2ec018fcabf8c6d3395c0d5dfde', // evaluation-setup
    10: 'fc0038df2ed1c46976df8f83c2a76fc9ba47d3f6dcb430cd4be03c210330ed21', // speakers-engine-index
    11: 'ddc24821679cd7757867e8c76e4dec93aad5deef9d9ed99b1bcdf43c300356c2', // corpora
    12: '8066ea337ede8b6f18d1d130e3dac0a471157137e03704fde43f314509b68c92', // corpus-evaluations
    13: '80de9ec7bbfe69f2589b6caed176ae135af3f8a4d72d5d3d8f73941b84df7fa1', // streaming-evaluations
    14: 'f3cc864378fd6d4264946948a3f865e76b0a0573a99ef7540c924db7072d8db3', // probes
    15: '96579e004c1baba94d2dc1c3760653c80a2aac2fb2d73842aea4eb417f1924bc', // event-loop-lag
    16: '6c5557db12f77df5358b602facdac4340319691923704fe1879fe32a1203d472', // migration-compatibility
    17: '8a70e6fa3134de5e62972f60255bfba277c821b4fb2fadf708bfd5378be3be4a', // conversations
    18: '806caa9f7e34778f43df25ec6c4861eb5bb82904946e966bab4c4a9498603e05', // audio-retention
  },
  postgres: {
    1: '37117d1e912be5b9309072eaa114dfdb292a3a474df4873549b68a5f44686c20', // initial
    2: 'ccea9de2d70428774e829cc87b4e1d595aa4d663434d5b3d7b7b1e0f9e8aa939', // scale-out
    3: 'a943075fcbd9c7eb57de520e593ee09b2c2c8d0cc03c203ff454faa977bb561d', // schema-repair
    4: 'fe76a798c060b2124a9272e2cc5eb9780a6bb8b34baafe021a27d373ea3ce0b5', // user-disabled
    5: '561bee7334cdcbf6edfa4ad1f623d4e36bcd3e9d48e2264ed662236009db4ee9', // evaluation-setup
    6: 'fc0038df2ed1c46976df8f83c2a76fc9ba47d3f6dcb430cd4be03c210330ed21', // speakers-engine-index
    7: 'e8c147c463cb36856fbe53ccb54d69bf2883e3dd5b5754d14fd65e40c8551306', // corpora
    8: '7ea0bc901e36c77b2b59b2dc5379aa99446c46a047e56f0ae6161e4244eff239', // corpus-evaluations
    9: 'cedbd6726aa146370e8ee2be177dc8e7c39f1d70601733f090a9293e4b7d0b4c', // streaming-evaluations
    10: 'f3cc864378fd6d4264946948a3f865e76b0a0573a99ef7540c924db7072d8db3', // probes
    11: 'de7b971a77589095dc9dad831598fb9fc0275b2c0c40ff74cb26afa24728c1bf', // event-loop-lag
    12: '41295b860a9303ec263218a8b7cf440bf07b6e6551dc8b4b423b29a07917b4c0', // migration-compatibility
    13: 'ecee2d7d779c6d183f63b5cc351f5894990333fd005ed70ccd2e495595bde70f', // conversations
    14: '806caa9f7e34778f43df25ec6c4861eb5bb82904946e966bab4c4a9498603e05', // audio-retention
  },
};

/**
 * Earlier texts of legacy migrations, edited in place after they were published and before checksums
 * were recorded; a database that recorded one of them upgrades instead of being refused. PostgreSQL 2
 * (scale-out) as of 229f8ec, 21aa4a4 and 43e9102 (test/fixtures/old-schemas/ holds each text).
 */
export const HISTORICAL_CHECKSUMS: Readonly<Record<Dialect, Readonly<Record<number, readonly string[]>>>> = {
  sqlite: {},
  postgres: {
    2: [
      'ea8ed4ee517bbc9d3db112cb201cc73b4410cb9d6663e6a0e4c6d4a9869a13a8', // 229f8ec: no audio blobs, cache epoch or last_granted
      '5cd854f4f1fea4df06a294bec71206a2c8a6b3bbbb5d8680a089bbbd6e1e5a76', // 21aa4a4: + audio blob tables (docs/deploy.md was published with it)
      'ec9a75622b17a46aa9fefcefa6a1f9979b503ddf79c3b977bc5c770040040a50', // 43e9102: + cache_epoch and its triggers
    ],
  },
};
