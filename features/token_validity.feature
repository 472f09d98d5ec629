Feature: How long tokens stay valid
  An access token is valid for 600 seconds after it is issued, a refresh
  token for 3600 seconds. Refreshing gives a new access token; the refresh
  token itself keeps its original expiry.

  The reference server's clock can be moved forward, so the @local @clock
  scenarios do not wait in real time; the @slow ones wait against any
  deployment. A run with -slow starts them before every other scenario,
  each with tokens of its own, so that the tokens age while the rest of
  the run goes on and each lifetime is checked when it falls due: a few
  seconds before it ends, that the token still works, and a few seconds
  after, that it no longer does.

  @spec @LIM-1 @CLI-5 @local @clock
  Scenario: An access token works for 600 seconds and not a moment longer
    Given the user has a token
    When 599 seconds pass
    Then the access token is accepted by the resource server
    When 1 more second passes
    Then the access token is refused by the resource server

  @spec @LIM-1 @CLI-5 @local @clock
  Scenario: The expiry announced with the token counts down
    Given the user has a token
    When 100 seconds pass
    And the client asks for a refresh of the refresh token
    Then a token is issued
    And the access token expires within 600 seconds

  @spec @LIM-2 @CLI-6 @local @clock
  Scenario: A refresh token works for 3600 seconds and not a moment longer
    Given the user has a token
    When 3599 seconds pass
    And the client asks for a refresh of the refresh token
    Then a token is issued
    And the access token is accepted by the resource server
    When 1 more second passes
    And the client asks for a refresh of the refresh token
    Then no token is issued

  @ref @LIM-2 @TOK-11 @local @clock
  Scenario: An expired refresh token is an invalid grant
    Given the user has a token
    When 3600 seconds pass
    And the client asks for a refresh of the refresh token
    Then the token request is refused with status 400 and error "invalid_grant"
    And the error description mentions "expired"

  @ref @LIM-1 @AUTH-7 @local @clock
  Scenario: An expired access token is refused with a challenge that says why
    Given the user has a token
    When 600 seconds pass
    And the user sends a request that needs a token
    Then the answer has status 401
    And the answer challenges the caller to authenticate with "Bearer" and error "invalid_token"
    And the error description mentions "expired"
    And the answer does not repeat any token of this scenario

  @spec @CLI-5 @slow
  Scenario: An access token works until the lifetime it was issued with has nearly passed
    Given the user has a token
    When the lifetime announced with the access token has nearly passed
    Then the access token is accepted by the resource server

  @spec @LIM-1 @slow
  Scenario: An access token stops working once the lifetime it was issued with has passed
    Given the user has a token
    When the lifetime announced with the access token has passed
    Then the access token is refused by the resource server

  @spec @CLI-6 @slow
  Scenario: A refresh token works until 3600 seconds after issue have nearly passed
    Given the user has a token
    When the refresh token's lifetime has nearly passed
    And the client asks for a refresh of the first refresh token
    Then a token is issued

  @spec @LIM-2 @slow
  Scenario: A refresh half-way does not extend the refresh token's life
    A refresh token stops working 3600 seconds after its issue, however
    often it was used. A target that gives a new refresh token at the
    refresh may revoke the first one there (RFC 6749 §6): the refusal at
    the end then shows that the first one stopped working, not that the
    refresh kept its expiry, and that is all a client can see of it.

    Given the user has a token
    When half the refresh token's lifetime has passed
    And the client asks for a refresh of the refresh token
    Then a token is issued
    When the first refresh token's lifetime has passed
    And the client asks for a refresh of the first refresh token
    Then no token is issued
