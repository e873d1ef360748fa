/**
 * Passwords of 12 characters or more that top the public breach-frequency lists (compared lower-case). A short
 * list on purpose: it stops the guesses an attacker tries first; length does the rest.
 */
export const COMMON_PASSWORDS: readonly string[] = [
  '123456789012', '1234567890123', '12345678901234', '123456789012345', '1234567890qwerty', '1q2w3e4r5t6y',
  '1q2w3e4r5t6y7u', '1qaz2wsx3edc', '1qaz2wsx3edc4rfv', 'qazwsxedcrfv', 'qwertyuiop12', 'qwertyuiop123',
  'qwertyuiopasdf', 'qwerty123456', 'qwerty1234567', 'qwertyqwerty', 'asdfghjkl123', 'asdfghjklzxcv',
  'zxcvbnm12345', 'zaq12wsxcde3', 'zaq1zaq1zaq1', 'password1234', 'password12345', 'password123456',
  'passwordpassword', 'password123!', 'password1234!', 'p@ssw0rd1234', 'p@ssword1234', 'passw0rd1234',
  'iloveyou1234', 'iloveyouiloveyou', 'letmein12345', 'letmeinletmein', 'welcome12345', 'welcome123456',
  'welcomewelcome', 'changeme1234', 'changemenow!', 'administrator', 'administrator1', 'admin1234567',
  'adminadmin123', 'abcdefghijkl', 'abcdefghijklm', 'abcd1234abcd', 'abc123abc123', 'abcdef123456',
  'a1b2c3d4e5f6', '987654321098', '098765432109', '111111111111', '000000000000', '121212121212',
  '123123123123', '123412341234', '112233445566', '147258369147', '123qweasdzxc', 'qweasdzxc123',
  'football1234', 'baseball1234', 'basketball12', 'superman1234', 'batman123456', 'starwars1234',
  'pokemon12345', 'sunshine1234', 'princess1234', 'monkey123456', 'dragon123456', 'master123456',
  'shadow123456', 'michael12345', 'jennifer1234', 'charlie12345', 'trustno1trustno1', 'correcthorsebatterystaple',
  'correct horse battery staple', 'thisismypassword', 'mypassword123', 'mysecretpassword', 'secretpassword',
  'supersecret123', 'newpassword123', 'default12345', 'computer1234', 'internet1234', 'whatever1234',
  'liverpool1234', 'chelsea12345', 'arsenal12345', 'manchester123', 'blink1821234', 'qwerty12345678',
  '1234qwerasdf', '1234qwerasdfzxcv', 'qwer1234qwer', 'asdf1234asdf', 'q1w2e3r4t5y6', 'q1w2e3r4t5y6u7',
  'investment123', 'investing1234', 'trading12345', 'stockmarket1',
];
