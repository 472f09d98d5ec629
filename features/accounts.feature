Feature: Accounts and client registrations of the reference server
  Accounts are the users who may obtain tokens: an email, an encoded
  password and roles. Client registrations are the applications that may
  call the token endpoint. The reference server reads both from a
  configuration file, or uses its embedded demo set when none is given.
  A configuration the specification forbids stops the server from starting,
  with a message that names the offending entry.

  In these scenarios a password written in a table is stored the way
  `eventsvc hash-password` prints it, as {bcrypt}, unless a step says what
  is stored instead.

  @spec @ACC-1 @ACC-3 @local
  Scenario: A password stored the way eventsvc hash-password prints it obtains a token
    Given the reference server runs with the accounts:
      | email             | password     | roles |
      | carol@example.com | carol-secret | USER  |
    When the client asks for a token with:
      | grant_type | password          |
      | username   | carol@example.com |
      | password   | carol-secret      |
    Then a token is issued

  @spec @ACC-3 @local
  Scenario: The stored password is checked, not merely present
    Given the reference server runs with the accounts:
      | email             | password     | roles |
      | carol@example.com | carol-secret | USER  |
    When the client asks for a token with:
      | grant_type | password          |
      | username   | carol@example.com |
      | password   | carol-secret-typo |
    Then no token is issued

  @spec @ACC-3 @local
  Scenario Outline: A stored password without a known encoding marker stops the server from starting
    Given a configuration with the accounts:
      | email             | password | roles |
      | frank@example.com | secret   | USER  |
    And the stored password of "frank@example.com" is <stored>
    When the reference server starts with it
    Then it refuses to start with a message that mentions "frank@example.com"

    Examples:
      | stored                                         |
      | "secret", in plain text                        |
      | "{noop}secret"                                 |
      | "{sha256}0123abcdef"                           |
      | "{bcrypt}not-a-hash"                           |
      | the bcrypt hash of "secret" without its marker |

  @spec @ACC-2 @local
  Scenario: Two accounts with the same email stop the server from starting
    Given a configuration with the accounts:
      | email            | password | roles |
      | dave@example.com | first    | USER  |
      | dave@example.com | second   | ADMIN |
    When the reference server starts with it
    Then it refuses to start with a message that mentions "duplicate email" and "dave@example.com"

  @ref @ACC-2 @local
  Scenario: Emails that differ only in letter case are the same email
    Given a configuration with the accounts:
      | email            | password | roles |
      | erin@example.com | first    | USER  |
      | Erin@Example.com | second   | USER  |
    When the reference server starts with it
    Then it refuses to start with a message that mentions "duplicate email" and "Erin@Example.com"

  @spec @ACC-4 @local
  Scenario: A role other than ADMIN and USER stops the server from starting
    Given a configuration with the accounts:
      | email             | password | roles     |
      | heidi@example.com | secret   | SUPERUSER |
    When the reference server starts with it
    Then it refuses to start with a message that mentions "unknown role" and "heidi@example.com"

  @spec @ACC-4 @local
  Scenario: Accounts may hold ADMIN, USER or both
    Given the reference server runs with the accounts:
      | email            | password | roles      |
      | ivan@example.com | secret-i | ADMIN,USER |
      | judy@example.com | secret-j | USER       |
      | ken@example.com  | secret-k | ADMIN      |
    When the client asks for a token with:
      | grant_type | password        |
      | username   | ken@example.com |
      | password   | secret-k        |
    Then a token is issued

  @spec @CLI-3 @local
  Scenario: A client registered for another grant type stops the server from starting
    Given a configuration with a client "legacy" for the grant types "password,client_credentials" and the resource "event"
    When the reference server starts with it
    Then it refuses to start with a message that mentions "unknown grant type" and "legacy"

  @spec @CLI-2 @local
  Scenario: A client secret stored the way eventsvc hash-password prints it is checked
    Given the reference server runs with a client "mobile" for the grant types "password,refresh_token" and the resource "event"
    When the client "mobile" asks for the user's token
    Then a token is issued
    When the client "mobile" asks for the user's token with a wrong client secret
    Then no token is issued

  @spec @CLI-2 @local
  Scenario: A client secret without a known encoding marker stops the server from starting
    Given a configuration with a client "plain" for the grant types "password,refresh_token" and the resource "event"
    And the stored secret of client "plain" is "plain-secret", in plain text
    When the reference server starts with it
    Then it refuses to start with a message that mentions "plain"

  @spec @CLI-7 @local
  Scenario: A token issued to a client of another resource is refused by the events API
    Given the reference server runs with a client "calendar" for the grant types "password,refresh_token" and the resource "calendar"
    When the client "calendar" asks for the user's token
    Then a token is issued
    When the user sends a request that needs a token
    Then the answer has status 403
    When the user reads the API root
    Then the answer has status 403
